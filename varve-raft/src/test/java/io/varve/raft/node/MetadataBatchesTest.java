package io.varve.raft.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.RaftRecord;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataBatchesTest {
    private final MetadataBatches batches = new MetadataBatches();

    @Test
    void aBatchCommittedInPiecesIsHandedOverOnceWholeWithItsOffsetsAndPayloads() {
        List<LogEntry> entries = entries(10, 3, "a", "b", "c");
        assertThat(batches.complete(entries.subList(0, 2))).isEmpty();
        List<RaftRecord> records = batches.complete(entries.subList(2, 3));
        assertThat(records).extracting(RaftRecord::offset).containsExactly(10L, 11L, 12L);
        assertThat(records)
                .extracting(r -> new String(r.payload(), StandardCharsets.UTF_8))
                .containsExactly("a", "b", "c");
        assertThat(records).allSatisfy(r -> assertThat(r.epoch()).isEqualTo(3));
    }

    @Test
    void controlEntriesTakeOffsetsButNeverBecomeRecords() {
        List<LogEntry> log = new ArrayList<>();
        log.add(new LogEntry(0, 1, EntryType.LEADER_CHANGE, new byte[0]));
        log.addAll(entries(1, 1, "x"));
        log.add(new LogEntry(2, 1, EntryType.VOTERS, new byte[0]));
        log.addAll(entries(3, 1, "y", "z"));
        assertThat(batches.complete(log)).extracting(RaftRecord::offset).containsExactly(1L, 3L, 4L);
    }

    @Test
    void aBatchCutShortByTheEndOfItsEpochIsDroppedAndTheNextEpochsBatchesStillArrive() {
        List<LogEntry> cut = entries(5, 2, "p", "q", "r").subList(0, 2);
        assertThat(batches.complete(cut)).isEmpty();
        List<LogEntry> next = new ArrayList<>();
        next.add(new LogEntry(7, 3, EntryType.LEADER_CHANGE, new byte[0]));
        next.addAll(entries(8, 3, "s"));
        assertThat(batches.complete(next)).extracting(RaftRecord::offset).containsExactly(8L);

        // without a LEADER_CHANGE in between, an entry of another epoch also ends the cut batch
        assertThat(batches.complete(entries(9, 3, "t", "u").subList(0, 1))).isEmpty();
        assertThat(batches.complete(entries(10, 4, "v")))
                .extracting(RaftRecord::offset)
                .containsExactly(10L);
    }

    @Test
    void anEntryWithoutABatchMarkerIsRefusedLoudly() {
        LogEntry bad = new LogEntry(0, 1, EntryType.DATA, new byte[] {7, 1, 2});
        assertThatThrownBy(() -> batches.complete(List.of(bad))).isInstanceOf(IllegalStateException.class);
    }

    /** The entries one proposal of {@code payloads} appends at {@code baseOffset} in {@code epoch}. */
    private static List<LogEntry> entries(long baseOffset, int epoch, String... payloads) {
        List<byte[]> raw = new ArrayList<>();
        for (String payload : payloads) {
            raw.add(payload.getBytes(StandardCharsets.UTF_8));
        }
        List<LogEntry> entries = new ArrayList<>();
        List<byte[]> framed = MetadataBatches.frame(raw);
        for (int i = 0; i < framed.size(); i++) {
            entries.add(new LogEntry(baseOffset + i, epoch, EntryType.DATA, framed.get(i)));
        }
        return entries;
    }
}
