package io.varve.raft.legacy;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LegacyLogMigrationTest {
    private static final int NODE_ID = 1;
    private static final String CLUSTER_ID = "migration-cluster";

    @TempDir
    Path dir;

    @Test
    void everyBatchOfTheOldLogReachesTheListenersOfTheNewOneInOrderAndTheOldDirectoryIsKeptAside() throws Exception {
        List<String> written = writeLegacyLog(List.of(batch("a", 3), batch("b", 1), batch("c", 5)));

        assertThat(LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID))
                .isEqualTo(9);

        assertThat(replayNewLog()).isEqualTo(written);
        assertThat(dir.resolve(LegacyLogMigration.LEGACY_DIR_NAME)).doesNotExist();
        assertThat(dir.resolve(LegacyLogMigration.MIGRATED_DIR_NAME)).isDirectory();
        assertThat(dir.resolve(LegacyLogMigration.WORK_DIR_NAME)).doesNotExist();
        assertThat(LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID))
                .isZero();
        assertThat(replayNewLog()).isEqualTo(written);
    }

    @Test
    void aBatchLargerThanTheNewLogTakesInOneAppendArrivesInPiecesWithNothingLost() throws Exception {
        int size = MetadataRaftRuntime.MAX_BATCH_ENTRIES + 10;
        writeLegacyLog(List.of(batch("big", size)));

        LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID);

        assertThat(replayNewLog()).isEqualTo(batch("big", size));
    }

    @Test
    void aMigrationACrashInterruptedBeforeItsRenameStartsOver() throws Exception {
        List<String> written = writeLegacyLog(List.of(batch("x", 2)));
        Path work = dir.resolve(LegacyLogMigration.WORK_DIR_NAME).resolve(MetadataRaftRuntime.DIR_NAME);
        Files.createDirectories(work);
        Files.write(work.resolve("00000000000000000000.log"), new byte[] {1, 2, 3});

        LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID);

        assertThat(replayNewLog()).isEqualTo(written);
    }

    @Test
    void aMigrationACrashInterruptedAfterItsRenameOnlyPutsTheOldDirectoryAside() throws Exception {
        List<String> written = writeLegacyLog(List.of(batch("y", 4)));
        LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID);
        // As if the node had stopped between the two renames: the old directory is back in place.
        Files.move(dir.resolve(LegacyLogMigration.MIGRATED_DIR_NAME), dir.resolve(LegacyLogMigration.LEGACY_DIR_NAME));

        assertThat(LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID))
                .isZero();

        assertThat(replayNewLog()).isEqualTo(written);
        assertThat(dir.resolve(LegacyLogMigration.LEGACY_DIR_NAME)).doesNotExist();
    }

    @Test
    void withoutAnOldDirectoryNothingHappens() {
        assertThat(LegacyLogMigration.migrateIfPresent(dir, NODE_ID, CLUSTER_ID))
                .isZero();
        assertThat(dir.resolve(MetadataRaftRuntime.DIR_NAME)).doesNotExist();
    }

    private static List<String> batch(String prefix, int size) {
        return IntStream.range(0, size).mapToObj(i -> prefix + i).toList();
    }

    /** Writes the batches in the old format; returns their payloads in order. */
    private List<String> writeLegacyLog(List<List<String>> batches) throws Exception {
        try (FileRaftLog log = FileRaftLog.open(dir.resolve(LegacyLogMigration.LEGACY_DIR_NAME))) {
            int epoch = 1;
            for (List<String> batch : batches) {
                log.append(epoch++, batch.stream().map(s -> s.getBytes(UTF_8)).toList());
            }
            log.flush();
        }
        return batches.stream().flatMap(List::stream).toList();
    }

    /** The payloads the new log hands its listener at start (a call holds whole batches, maybe several). */
    private List<String> replayNewLog() {
        List<String> payloads = new ArrayList<>();
        RaftListener listener = new RaftListener() {
            @Override
            public void handleCommit(List<RaftRecord> records) {
                records.forEach(r -> payloads.add(new String(r.payload(), UTF_8)));
            }
        };
        try (MetadataRaftRuntime runtime = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                NODE_ID, CLUSTER_ID, Set.of(NODE_ID), dir, RaftTransport.none(), 30_000))) {
            runtime.register(listener);
            runtime.start();
        }
        return payloads;
    }
}
