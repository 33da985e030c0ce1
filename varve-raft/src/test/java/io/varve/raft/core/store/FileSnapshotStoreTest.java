package io.varve.raft.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.SnapshotId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSnapshotStoreTest {
    @TempDir
    Path dir;

    @Test
    void aSnapshotIsNamedAsInKip630AndReadBackInChunks() {
        FileSnapshotStore store = new FileSnapshotStore(dir);
        byte[] data = bytes(10_000, 1);
        store.write(new SnapshotId(120, 3), data);
        assertThat(Files.exists(dir.resolve("00000000000000000120-0000000003.checkpoint")))
                .isTrue();
        assertThat(store.latest()).contains(new SnapshotId(120, 3));
        assertThat(store.sizeBytes(new SnapshotId(120, 3))).isEqualTo(10_000);
        byte[] chunk = store.read(new SnapshotId(120, 3), 9_000, 4096);
        assertThat(chunk).isEqualTo(Arrays.copyOfRange(data, 9_000, 10_000));
        assertThat(store.read(new SnapshotId(120, 3), 10_000, 4096)).isEmpty();
    }

    @Test
    void theLatestSurvivesAReopenAndOlderOnesAreDeletedOnceItIsDurable() {
        FileSnapshotStore store = new FileSnapshotStore(dir);
        store.write(new SnapshotId(10, 1), bytes(100, 1));
        store.write(new SnapshotId(20, 2), bytes(200, 2));
        assertThat(files()).containsExactly("00000000000000000020-0000000002.checkpoint");
        FileSnapshotStore reopened = new FileSnapshotStore(dir);
        assertThat(reopened.latest()).contains(new SnapshotId(20, 2));
        assertThat(reopened.read(new SnapshotId(20, 2), 0, 1000)).isEqualTo(bytes(200, 2));
        assertThatThrownBy(() -> reopened.write(new SnapshotId(15, 2), bytes(1, 1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aHalfWrittenSnapshotIsDeletedOnOpenAndTheLastWholeOneKept() throws IOException {
        new FileSnapshotStore(dir).write(new SnapshotId(10, 1), bytes(100, 1));
        Files.write(dir.resolve("00000000000000000030-0000000002.checkpoint.part"), bytes(50, 9));
        FileSnapshotStore reopened = new FileSnapshotStore(dir);
        assertThat(reopened.latest()).contains(new SnapshotId(10, 1));
        assertThat(files()).containsExactly("00000000000000000010-0000000001.checkpoint");
    }

    @Test
    void aSnapshotWhoseChecksumFailsIsRefused() {
        new FileSnapshotStore(dir).write(new SnapshotId(10, 1), bytes(5000, 1));
        PowerCut.DurableIoForTests.flipByte(dir.resolve("00000000000000000010-0000000001.checkpoint"), 3000);
        assertThatThrownBy(() -> new FileSnapshotStore(dir))
                .isInstanceOf(CorruptStoreException.class)
                .hasMessageContaining("checksum");
    }

    @Test
    void aTruncatedSnapshotIsRefused() throws IOException {
        new FileSnapshotStore(dir).write(new SnapshotId(10, 1), bytes(5000, 1));
        Path file = dir.resolve("00000000000000000010-0000000001.checkpoint");
        Files.write(file, Arrays.copyOf(Files.readAllBytes(file), 2000));
        assertThatThrownBy(() -> new FileSnapshotStore(dir)).isInstanceOf(CorruptStoreException.class);
    }

    private String[] files() {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] bytes(int count, long seed) {
        byte[] out = new byte[count];
        new Random(seed).nextBytes(out);
        return out;
    }
}
