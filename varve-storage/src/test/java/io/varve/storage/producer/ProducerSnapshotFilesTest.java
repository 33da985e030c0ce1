package io.varve.storage.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerSnapshotFilesTest {

    @TempDir
    Path dir;

    private static ProducerSnapshot snapshot(long offset) {
        ProducerStateEntry first = new ProducerStateEntry(
                7L,
                (short) 2,
                List.of(new BatchMetadata(0, 4, 10, 14, 1_000L), new BatchMetadata(5, 5, 20, 20, 1_010L)));
        ProducerStateEntry second = new ProducerStateEntry(
                Long.MAX_VALUE, (short) 0, List.of(new BatchMetadata(Integer.MAX_VALUE, 2, 30, 33, -1L)));
        return new ProducerSnapshot(offset, 25, 4_096, Map.of(7L, first, Long.MAX_VALUE, second));
    }

    @Test
    void snapshotRoundTripsUnderItsOffsetsName() throws Exception {
        ProducerSnapshotFiles.write(dir, snapshot(34));
        Path file = dir.resolve("00000000000000000034.snapshot");
        assertThat(file).exists();
        assertThat(ProducerSnapshotFiles.read(file)).isEqualTo(snapshot(34));
        assertThat(ProducerSnapshotFiles.list(dir)).containsOnlyKeys(34L);
    }

    @Test
    void transactionStateRoundTrips() throws Exception {
        ProducerStateEntry inTxn =
                new ProducerStateEntry(9L, (short) 4, List.of(new BatchMetadata(3, 5, 40, 42, 2_000L)), 38L, 6, 2_500L);
        ProducerSnapshot snapshot = new ProducerSnapshot(43, 30, 512, Map.of(9L, inTxn));
        ProducerSnapshotFiles.write(dir, snapshot);
        ProducerSnapshot read = ProducerSnapshotFiles.read(ProducerSnapshotFiles.path(dir, 43));
        assertThat(read).isEqualTo(snapshot);
        assertThat(read.producers().get(9L).currentTxnFirstOffset()).isEqualTo(38L);
        assertThat(read.producers().get(9L).coordinatorEpoch()).isEqualTo(6);
    }

    @Test
    void versionOneSnapshotsFromBeforeTransactionsAreStillRead() throws Exception {
        ByteBuffer body = ByteBuffer.allocate(8 + 8 + 4 + 4 + 8 + 2 + 1 + 32);
        body.putLong(21)
                .putLong(20)
                .putInt(300)
                .putInt(1)
                .putLong(7L)
                .putShort((short) 2)
                .put((byte) 1)
                .putInt(0)
                .putInt(4)
                .putLong(10)
                .putLong(14)
                .putLong(1_000L)
                .flip();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body.duplicate());
        ByteBuffer file = ByteBuffer.allocate(14 + body.remaining());
        file.putInt(0x56505331)
                .putShort((short) 1)
                .putInt((int) crc.getValue())
                .putInt(body.remaining())
                .put(body)
                .flip();
        Path path = ProducerSnapshotFiles.path(dir, 21);
        Files.write(path, java.util.Arrays.copyOf(file.array(), file.limit()));

        ProducerStateEntry entry = ProducerSnapshotFiles.read(path).producers().get(7L);

        assertThat(entry)
                .isEqualTo(new ProducerStateEntry(7L, (short) 2, List.of(new BatchMetadata(0, 4, 10, 14, 1_000L))));
        assertThat(entry.hasOngoingTxn()).isFalse();
        assertThat(entry.lastTimestampMs()).isEqualTo(1_000L);
    }

    @Test
    void emptyStateRoundTrips() throws Exception {
        ProducerSnapshot empty = new ProducerSnapshot(0, 0, 0, Map.of());
        ProducerSnapshotFiles.write(dir, empty);
        assertThat(ProducerSnapshotFiles.read(ProducerSnapshotFiles.path(dir, 0)))
                .isEqualTo(empty);
    }

    @Test
    void anyFlippedByteOrTruncationIsDetected() throws Exception {
        ProducerSnapshotFiles.write(dir, snapshot(34));
        Path file = ProducerSnapshotFiles.path(dir, 34);
        long size = Files.size(file);
        for (long at = 0; at < size; at += 7) {
            byte[] original = Files.readAllBytes(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {(byte) (original[(int) at] ^ 0x40)}), at);
            }
            assertThatThrownBy(() -> ProducerSnapshotFiles.read(file))
                    .as("byte %d flipped", at)
                    .isInstanceOf(IOException.class);
            Files.write(file, original);
        }
        Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), (int) size - 3));
        assertThatThrownBy(() -> ProducerSnapshotFiles.read(file)).isInstanceOf(IOException.class);
    }
}
