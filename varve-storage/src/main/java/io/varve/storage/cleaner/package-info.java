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
 * <h2>Transactions (exactly-once issue): how they slot in</h2>
 * Today control batches (transaction markers) and transactional batches are left untouched: the records
 * filter copies them as they are ({@code Rules.keepUntouched}) and their keys are not put into the offset
 * map, so an open or aborted transaction can never shadow an earlier committed value. When transactions
 * land, a pass will:
 * <ol>
 *   <li>clean only below the last stable offset (add it to {@code LogToClean}'s uncleanable bound, beside
 *       the high watermark), so no open transaction is ever rewritten;</li>
 *   <li>read the aborted transactions of the dirty range from the transaction index (producer id, first
 *       offset, last offset) and, while building the map and filtering, skip the data batches of a
 *       producer inside an aborted range: those batches are dropped whole ({@code BatchRetention.DELETE})
 *       and never enter the map;</li>
 *   <li>put committed transactional records into the map like any other record (their keys shadow older
 *       values once the commit marker is below the dirty end);</li>
 *   <li>drop a transaction marker once no data of its transaction remains before it and its delete horizon
 *       passed: the first pass that finds a marker whose transaction is empty stamps the horizon (the
 *       {@code containsMarkerForEmptyTxn} flag of kafka-clients' batch filter), a pass after it removes it,
 *       exactly as tombstones go; until then the marker stays so that read_committed consumers and
 *       producer-state rebuilds still see the transaction end.</li>
 * </ol>
 * Only {@code Rules.keepUntouched}, {@code MapFiller.batch} and the uncleanable bound change; the seam
 * already carries the horizon handling.
 */
package io.varve.storage.cleaner;
