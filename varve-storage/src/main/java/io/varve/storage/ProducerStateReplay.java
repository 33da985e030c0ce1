package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.records.TxnMarker;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.BatchHeaderScanner;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.TransactionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.NavigableMap;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * Applies batches that are already in the log (or are being copied into it from a leader) to the producer
 * state without validation: loading and recovery, truncation, and follower appends all rebuild the state the
 * same way, so a replica that becomes leader de-duplicates retries and knows the open transactions exactly as
 * the leader did. ABORT markers may also be recorded in their segment's transaction index.
 */
final class ProducerStateReplay {

    private ProducerStateReplay() {}

    /**
     * Applies one batch: a data batch of a producer extends its entry; a COMMIT or ABORT marker ({@code marker},
     * null for any other batch) ends its transaction, and an abort goes into {@code abortIndex} when it is given.
     */
    static void apply(ProducerStateManager state, BatchHeader header, TxnMarker marker, TransactionIndex abortIndex)
            throws IOException {
        if (!header.hasProducerId()) {
            return;
        }
        if (header.isControl()) {
            if (marker == null) {
                return; // another kind of control record, or one a cleaner emptied
            }
            ProducerStateManager.CompletedTxn completed = state.replayMarker(
                    header.producerId(),
                    header.producerEpoch(),
                    marker.coordinatorEpoch(),
                    marker.commit(),
                    header.baseOffset(),
                    header.maxTimestamp());
            if (abortIndex != null && completed.aborted()) {
                abortIndex.append(new AbortedTxn(
                        completed.producerId(),
                        completed.firstOffset(),
                        completed.lastOffset(),
                        state.lastStableOffsetAfter(completed)));
            }
            return;
        }
        state.replay(
                header.producerId(),
                header.producerEpoch(),
                new BatchMetadata(
                        header.baseSequence(),
                        header.lastSequence(),
                        header.baseOffset(),
                        header.lastOffset(),
                        header.maxTimestamp()),
                header.isTransactional());
    }

    /**
     * Applies every batch in {@code segments} whose base offset is in [{@code fromOffset}, {@code toOffsetExclusive}),
     * recording the ABORT markers at or after {@code txnIndexRebuildFrom} in their segment's transaction index.
     *
     * @throws KafkaStorageException a segment is corrupt or holds an undecodable control batch
     */
    static void replay(
            String name,
            NavigableMap<Long, LogSegment> segments,
            ProducerStateManager state,
            long fromOffset,
            long toOffsetExclusive,
            long txnIndexRebuildFrom)
            throws IOException {
        Long firstBase = segments.floorKey(fromOffset);
        for (LogSegment segment : segments.tailMap(firstBase == null ? segments.firstKey() : firstBase, true)
                .values()) {
            if (segment.baseOffset() >= toOffsetExclusive) {
                return;
            }
            BatchHeaderScanner scanner = segment.scanner(segment.index().lookup(fromOffset), false);
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                if (header.baseOffset() >= toOffsetExclusive) {
                    return;
                }
                if (!header.hasProducerId() || header.baseOffset() < fromOffset) {
                    continue;
                }
                TxnMarker marker = header.isControl() ? readMarker(name, segment, header) : null;
                apply(state, header, marker, header.baseOffset() >= txnIndexRebuildFrom ? segment.txnIndex() : null);
            }
            if (scanner.stop() != BatchHeaderScanner.Stop.END) {
                throw new KafkaStorageException(name + ": segment " + segment.logFile() + " is corrupt at position "
                        + scanner.position() + " (" + scanner.stopReason() + ")");
            }
        }
    }

    private static TxnMarker readMarker(String name, LogSegment segment, BatchHeader header) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(header.sizeBytes());
        DurableFiles.readFully(segment.channel(), bytes, header.position());
        try {
            return TxnMarker.readOrNull(bytes.flip());
        } catch (InvalidRecordException e) {
            throw new KafkaStorageException(
                    name + ": undecodable control batch at offset " + header.baseOffset() + " in " + segment.logFile()
                            + ": " + e.getMessage(),
                    e);
        }
    }
}
