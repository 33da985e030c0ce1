/**
 * The cluster metadata as immutable images ({@link io.varve.metadata.image.MetadataImage} and its
 * parts) and the deltas that replay records into the next image. Readers hold an image and never
 * lock. Owns the meaning of records; does not decide which records to write (the controller does)
 * nor read the log (the loader does).
 */
package io.varve.metadata.image;
