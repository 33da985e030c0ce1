/**
 * Metadata records, the events of the event-sourced cluster state, and their binary format
 * ({@link io.varve.metadata.record.MetadataRecordSerde}). Values only: applying records is the
 * image package's job, deciding which to write is the controller's.
 */
package io.varve.metadata.record;
