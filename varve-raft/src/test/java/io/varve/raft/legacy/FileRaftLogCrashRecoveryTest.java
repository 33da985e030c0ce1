package io.varve.raft.legacy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random crashes: batches are appended, then the file is cut at a random byte and the tail
 * optionally overwritten with garbage; after reopening, the log must hold exactly the batches that
 * were complete before the damage, and accept appends right after them.
 */
class FileRaftLogCrashRecoveryTest {

    private static final int SEEDS = 100;

    @TempDir
    Path root;

    @Test
    void recoveryKeepsExactlyTheBatchesWrittenWhollyBeforeTheDamage() throws IOException {
        for (int seed = 0; seed < SEEDS; seed++) {
            runScenario(seed);
        }
    }

    private void runScenario(long seed) throws IOException {
        Random random = new Random(seed);
        Path dir = root.resolve("seed-" + seed);
        List<LogBatch> written = new ArrayList<>();
        List<Long> frameEnds = new ArrayList<>();
        try (FileRaftLog log = FileRaftLog.open(dir)) {
            int epoch = 1;
            int batches = 1 + random.nextInt(20);
            for (int i = 0; i < batches; i++) {
                epoch += random.nextInt(4) == 0 ? 1 : 0;
                List<byte[]> payloads = new ArrayList<>();
                int records = 1 + random.nextInt(5);
                for (int r = 0; r < records; r++) {
                    byte[] payload = new byte[random.nextInt(300)];
                    random.nextBytes(payload);
                    payloads.add(payload);
                }
                written.add(log.append(epoch, payloads));
                frameEnds.add(Files.size(dir.resolve(FileRaftLog.SEGMENT_FILE_NAME)));
            }
            log.flush();
        }
        Path file = dir.resolve(FileRaftLog.SEGMENT_FILE_NAME);
        long size = Files.size(file);
        long cut = (long) (random.nextDouble() * (size + 1));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(cut);
            if (random.nextBoolean()) {
                byte[] garbage = new byte[random.nextInt(64)];
                if (random.nextBoolean()) {
                    random.nextBytes(garbage); // otherwise zeros, as after a crash on some file systems
                }
                channel.write(java.nio.ByteBuffer.wrap(garbage), cut);
            }
        }
        int survivors = 0;
        while (survivors < frameEnds.size() && frameEnds.get(survivors) <= cut) {
            survivors++;
        }
        List<LogBatch> expected = written.subList(0, survivors);

        try (FileRaftLog log = FileRaftLog.open(dir)) {
            List<LogBatch> recovered = log.read(0, Long.MAX_VALUE, Integer.MAX_VALUE);
            assertThat(recovered).as("seed %d", seed).hasSize(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                assertThat(recovered.get(i).baseOffset())
                        .as("seed %d", seed)
                        .isEqualTo(expected.get(i).baseOffset());
                assertThat(recovered.get(i).epoch())
                        .as("seed %d", seed)
                        .isEqualTo(expected.get(i).epoch());
                assertThat(recovered.get(i).payloads())
                        .as("seed %d", seed)
                        .containsExactlyElementsOf(expected.get(i).payloads());
            }
            long expectedEnd =
                    expected.isEmpty() ? 0 : expected.get(expected.size() - 1).nextOffset();
            assertThat(log.endOffset()).as("seed %d", seed).isEqualTo(expectedEnd);
            assertThat(Files.size(file))
                    .as("seed %d", seed)
                    .isEqualTo(survivors == 0 ? 0 : frameEnds.get(survivors - 1));
            assertThat(log.append(log.lastEpoch(), List.of(new byte[] {1})).baseOffset())
                    .isEqualTo(expectedEnd);
        }
    }
}
