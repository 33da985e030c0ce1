/**
 * The log cleaner: compaction of logs whose cleanup.policy contains compact (Kafka's design).
 * {@link io.varve.storage.cleaner.LogCleaner} picks the log to clean and keeps the per log dir
 * {@code cleaner-offset-checkpoint}; {@code LogToClean} measures a log's clean and dirty parts;
 * {@code CleaningPass} runs one pass (key to latest offset map over the dirty part in a bounded
 * {@code KeyOffsetMap}, rewrite of the segments up to its end grouped by {@code SegmentGroups}, swap through
 * {@code PartitionLog.replaceSegments}); {@code SegmentBatchReader} reads and CRC-checks the segments.
 * Record decoding and re-encoding happen only in {@code io.varve.storage.records}. Threads and the clock
 * come from the log manager. Never touches the active segment, so appends and reads are never blocked.
 *
 * <h2>Transactions</h2>
 * A pass never reaches past the last stable offset ({@code LogToClean}), so every transaction it sees is
 * complete. {@code CleanedTransactions} walks the batches in log order with the aborted transactions of the range
 * (from the segments' transaction indexes): data batches of an aborted transaction are dropped whole and never
 * enter the offset map; committed transactional records are compacted like any other (their keys go into the
 * map); a COMMIT or ABORT marker whose transaction has no data left gets a delete horizon (now +
 * delete.retention.ms) on its first rewrite and is dropped by the first pass after it, exactly as tombstones go,
 * so read_committed consumers and producer-state rebuilds see the transaction end until then. An abort stays in
 * the cleaned segment's transaction index while the pass still met data of it.
 */
package io.varve.storage.cleaner;
