/**
 * The records the group coordinator writes to {@code __consumer_offsets}: key and value bytes in Varve's own
 * versioned format. Keys start with a record type (the compaction identity: one live value per group, per
 * group and partition); values start with a value version so later releases can read older values. A null
 * value is a tombstone. Unknown types or versions fail loudly: corrupt state is never loaded.
 */
package io.varve.coordinator.group.record;
