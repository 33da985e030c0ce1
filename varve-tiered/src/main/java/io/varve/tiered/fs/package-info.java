/**
 * The filesystem backend: a local (or mounted) directory used as an object store, with object keys as relative
 * paths. The default backend of {@code bin/varve server}, so tiering works with no cloud account.
 */
package io.varve.tiered.fs;
