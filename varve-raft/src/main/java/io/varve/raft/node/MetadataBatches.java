package io.varve.raft.node;

import io.varve.raft.RaftRecord;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches of metadata records over a log of single entries. Pure: no I/O, no threads.
 *
 * <p>{@link #frame} prefixes each payload with one byte saying whether it ends its batch; {@link #complete} takes
 * committed entries in log order and returns the records of every batch they complete, holding back a batch's
 * first entries until its last one commits. A batch cut short by the end of its epoch (its prefix committed, then
 * a LEADER_CHANGE or another epoch's entry) is dropped: its proposal failed, and every replica sees the same log, so
 * every replica drops it alike. Control entries never become records.
 */
final class MetadataBatches {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataBatches.class);
    private static final byte MORE_IN_BATCH = 0;
    private static final byte ENDS_BATCH = 1;

    private final List<RaftRecord> inProgress = new ArrayList<>();

    /** The payloads as entries of one batch (copies: one byte longer). */
    static List<byte[]> frame(List<byte[]> payloads) {
        List<byte[]> framed = new ArrayList<>(payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            byte[] payload = payloads.get(i);
            byte[] entry = new byte[payload.length + 1];
            entry[0] = i == payloads.size() - 1 ? ENDS_BATCH : MORE_IN_BATCH;
            System.arraycopy(payload, 0, entry, 1, payload.length);
            framed.add(entry);
        }
        return framed;
    }

    /** Forgets a batch in progress: a snapshot replaced the log it was part of. */
    void clear() {
        inProgress.clear();
    }

    /** The records of the batches these committed entries complete, in order (often none, never part of one). */
    List<RaftRecord> complete(List<LogEntry> committed) {
        List<RaftRecord> complete = new ArrayList<>();
        for (LogEntry entry : committed) {
            boolean data = entry.type() == EntryType.DATA;
            if (!inProgress.isEmpty() && (!data || inProgress.get(0).epoch() != entry.epoch())) {
                LOG.warn(
                        "Dropped {} metadata records from offset {}: their epoch {} ended before their batch did",
                        inProgress.size(),
                        inProgress.get(0).offset(),
                        inProgress.get(0).epoch());
                inProgress.clear();
            }
            if (!data) {
                continue;
            }
            byte[] framed = entry.payload();
            if (framed.length == 0 || (framed[0] != MORE_IN_BATCH && framed[0] != ENDS_BATCH)) {
                throw new IllegalStateException("entry " + entry + " has no batch marker");
            }
            byte[] payload = new byte[framed.length - 1];
            System.arraycopy(framed, 1, payload, 0, payload.length);
            inProgress.add(new RaftRecord(entry.offset(), entry.epoch(), payload));
            if (framed[0] == ENDS_BATCH) {
                complete.addAll(inProgress);
                inProgress.clear();
            }
        }
        return complete;
    }
}
