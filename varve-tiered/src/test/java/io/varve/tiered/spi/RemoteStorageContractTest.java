package io.varve.tiered.spi;

import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link RemoteStorage} backend must do. Subclasses create the backend (and whatever server it needs);
 * the tests only use the SPI.
 */
public abstract class RemoteStorageContractTest {
    /** Above the S3 backend's multipart threshold in the tests (5 MiB parts), so the S3 run uploads two parts. */
    protected static final int LARGE_SEGMENT_BYTES = 6 * 1024 * 1024 + 17;

    @TempDir
    protected Path localDir;

    protected RemoteStorage storage;

    protected abstract RemoteStorage createStorage() throws Exception;

    @BeforeEach
    void createBackend() throws Exception {
        storage = createStorage();
    }

    @AfterEach
    void closeBackend() {
        if (storage != null) {
            storage.close();
        }
    }

    /** Local segment files with recognisable content; the log holds {@code logBytes} random bytes. */
    protected SegmentFiles localSegment(String name, int logBytes, boolean withTxnIndex) throws IOException {
        Path dir = Files.createDirectories(localDir.resolve(name));
        byte[] log = new byte[logBytes];
        new Random(logBytes).nextBytes(log);
        Files.write(dir.resolve("00000000000000000000.log"), log);
        Files.writeString(dir.resolve("00000000000000000000.index"), "offset-index of " + name);
        Files.writeString(dir.resolve("00000000000000000000.timeindex"), "time-index of " + name);
        Files.writeString(dir.resolve("00000000000000000000.snapshot"), "producer-snapshot of " + name);
        Optional<Path> txn = Optional.empty();
        if (withTxnIndex) {
            txn = Optional.of(Files.writeString(dir.resolve("00000000000000000000.txnindex"), "txn-index of " + name));
        }
        ByteBuffer epochs = ByteBuffer.wrap(("0\n1\n0 0\n" + name).getBytes(StandardCharsets.UTF_8));
        return new SegmentFiles(
                dir.resolve("00000000000000000000.log"),
                dir.resolve("00000000000000000000.index"),
                dir.resolve("00000000000000000000.timeindex"),
                dir.resolve("00000000000000000000.snapshot"),
                epochs,
                txn);
    }

    protected static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    private static byte[] epochBytes(SegmentFiles files) {
        ByteBuffer b = files.leaderEpochCheckpoint().duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }

    @Test
    void copiedSegmentAndEveryIndexReadBackByteIdentical() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        SegmentFiles files = localSegment("a", 64 * 1024, true);
        storage.copySegment(m, files);

        assertThat(readAll(storage.fetchLogSegment(m, 0))).isEqualTo(Files.readAllBytes(files.log()));
        for (IndexType type : IndexType.values()) {
            byte[] expected = type == IndexType.LEADER_EPOCH
                    ? epochBytes(files)
                    : Files.readAllBytes(files.file(type).orElseThrow());
            assertThat(readAll(storage.fetchIndex(m, type))).as(type.name()).isEqualTo(expected);
        }
    }

    @Test
    void rangedReadsReturnExactlyTheRequestedBytesInclusive() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        SegmentFiles files = localSegment("ranges", 100_000, false);
        storage.copySegment(m, files);
        byte[] log = Files.readAllBytes(files.log());

        assertThat(readAll(storage.fetchLogSegment(m, 10, 19))).isEqualTo(Arrays.copyOfRange(log, 10, 20));
        assertThat(readAll(storage.fetchLogSegment(m, 99_999, 99_999))).isEqualTo(new byte[] {log[99_999]});
        assertThat(readAll(storage.fetchLogSegment(m, 50_000))).isEqualTo(Arrays.copyOfRange(log, 50_000, 100_000));
        assertThat(readAll(storage.fetchLogSegment(m, 90_000, 200_000)))
                .isEqualTo(Arrays.copyOfRange(log, 90_000, 100_000));
    }

    @Test
    void readsOutsideTheSegmentFailWithoutRetry() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        storage.copySegment(m, localSegment("outside", 1000, false));
        assertThatThrownBy(() -> readAll(storage.fetchLogSegment(m, 1000, 2000)))
                .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                        .isFalse());
        assertThatThrownBy(() -> storage.fetchLogSegment(m, 10, 5))
                .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                        .isFalse());
    }

    @Test
    void absentTransactionIndexAndUnknownSegmentAreNotFound() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        storage.copySegment(m, localSegment("no-txn", 1000, false));
        assertThatThrownBy(() -> storage.fetchIndex(m, IndexType.TRANSACTION))
                .isInstanceOf(RemoteResourceNotFoundException.class);
        RemoteSegmentMetadata never = segment(100, 199);
        assertThatThrownBy(() -> storage.fetchLogSegment(never, 0)).isInstanceOf(RemoteResourceNotFoundException.class);
        assertThatThrownBy(() -> storage.fetchIndex(never, IndexType.OFFSET))
                .isInstanceOf(RemoteResourceNotFoundException.class);
    }

    @Test
    void metadataObjectsAreListedInNameOrderReadBackAndSurviveTheirSegmentsDeletion() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        var partition = m.topicIdPartition();
        assertThat(storage.listMetadata(partition)).isEmpty();
        assertThat(storage.getMetadata(partition, "absent")).isEmpty();
        storage.putMetadata(partition, "00000000000000000100-b.copy_started", new byte[] {2});
        storage.putMetadata(partition, "00000000000000000000-a.copy_started", new byte[] {1});
        storage.putMetadata(partition, "00000000000000000000-a.copy_finished", new byte[0]);
        storage.copySegment(m, localSegment("with-metadata", 1000, false));
        storage.deleteSegment(m);

        assertThat(storage.listMetadata(partition))
                .containsExactly(
                        "00000000000000000000-a.copy_finished",
                        "00000000000000000000-a.copy_started",
                        "00000000000000000100-b.copy_started");
        assertThat(storage.getMetadata(partition, "00000000000000000100-b.copy_started"))
                .hasValueSatisfying(b -> assertThat(b).containsExactly(2));
        storage.deleteMetadata(partition, "00000000000000000000-a.copy_started");
        storage.deleteMetadata(partition, "00000000000000000000-a.copy_started");
        assertThat(storage.listMetadata(partition))
                .containsExactly("00000000000000000000-a.copy_finished", "00000000000000000100-b.copy_started");
    }

    @Test
    void deleteRemovesEveryObjectAndIsIdempotent() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        RemoteSegmentMetadata neighbour = segment(100, 199);
        storage.copySegment(m, localSegment("doomed", 1000, true));
        storage.copySegment(neighbour, localSegment("neighbour", 1000, true));

        storage.deleteSegment(m);
        assertThatThrownBy(() -> storage.fetchLogSegment(m, 0)).isInstanceOf(RemoteResourceNotFoundException.class);
        for (IndexType type : IndexType.values()) {
            assertThatThrownBy(() -> storage.fetchIndex(m, type))
                    .as(type.name())
                    .isInstanceOf(RemoteResourceNotFoundException.class);
        }
        storage.deleteSegment(m);
        storage.deleteSegment(segment(500, 599)); // never copied
        assertThat(readAll(storage.fetchLogSegment(neighbour, 0))).hasSize(1000);
    }

    @Test
    void repeatedCopyOverwritesWithTheSameBytes() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        SegmentFiles files = localSegment("again", 5000, false);
        storage.copySegment(m, files);
        storage.copySegment(m, files);
        assertThat(readAll(storage.fetchLogSegment(m, 0))).isEqualTo(Files.readAllBytes(files.log()));
    }

    @Test
    void uploadsOfTheSameOffsetsWithDifferentSegmentIdsStayApart() throws Exception {
        RemoteSegmentMetadata first = segment(0, 99);
        RemoteSegmentMetadata retry = segment(0, 99);
        storage.copySegment(first, localSegment("first", 3000, false));
        storage.copySegment(retry, localSegment("retry", 4000, false));
        storage.deleteSegment(first);
        assertThat(readAll(storage.fetchLogSegment(retry, 0))).hasSize(4000);
    }

    @Test
    void largeSegmentRoundTrips() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99_999);
        SegmentFiles files = localSegment("large", LARGE_SEGMENT_BYTES, false);
        storage.copySegment(m, files);
        byte[] log = Files.readAllBytes(files.log());
        assertThat(readAll(storage.fetchLogSegment(m, 0))).isEqualTo(log);
        int from = 5 * 1024 * 1024 - 3; // across a part boundary
        assertThat(readAll(storage.fetchLogSegment(m, from, from + 9)))
                .isEqualTo(Arrays.copyOfRange(log, from, from + 10));
    }
}
