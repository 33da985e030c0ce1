package io.varve.storage.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
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
    ProducerStateEntry first = new ProducerStateEntry(7L, (short) 2, List.of(
        new BatchMetadata(0, 4, 10, 14, 1_000L), new BatchMetadata(5, 5, 20, 20, 1_010L)));
    ProducerStateEntry second = new ProducerStateEntry(Long.MAX_VALUE, (short) 0,
        List.of(new BatchMetadata(Integer.MAX_VALUE, 2, 30, 33, -1L)));
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
  void emptyStateRoundTrips() throws Exception {
    ProducerSnapshot empty = new ProducerSnapshot(0, 0, 0, Map.of());
    ProducerSnapshotFiles.write(dir, empty);
    assertThat(ProducerSnapshotFiles.read(ProducerSnapshotFiles.path(dir, 0))).isEqualTo(empty);
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
      assertThatThrownBy(() -> ProducerSnapshotFiles.read(file)).as("byte %d flipped", at).isInstanceOf(IOException.class);
      Files.write(file, original);
    }
    Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), (int) size - 3));
    assertThatThrownBy(() -> ProducerSnapshotFiles.read(file)).isInstanceOf(IOException.class);
  }
}
