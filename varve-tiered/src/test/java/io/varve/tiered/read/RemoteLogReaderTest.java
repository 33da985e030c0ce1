package io.varve.tiered.read;

import static io.varve.tiered.read.TieredFixture.PARTITION;
import static io.varve.tiered.read.TieredFixture.epochs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.PartitionLog;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader over heap chunks (how S3 is read); {@link ZeroCopyRemoteLogReaderTest} runs every test again over the
 * filesystem backend's own files.
 */
class RemoteLogReaderTest {
    static final int CHUNK_BYTES = 4096;
    private static final int READ_AHEAD_CHUNKS = 2;

    @TempDir
    Path dir;

    private TieredFixture fixture;
    private RemoteReadService service;

    /** Whether fetches are answered with ranges of the remote objects' files. */
    boolean zeroCopy() {
        return false;
    }

    private RemoteLogReader reader(long chunkCacheBytes, long indexCacheBytes) throws Exception {
        fixture = fixture == null ? new TieredFixture(dir) : fixture;
        service = new RemoteReadService(
                fixture.storage,
                fixture.source,
                new RemoteReadConfig(
                                2, 10, 500, indexCacheBytes, CHUNK_BYTES, chunkCacheBytes, dir.resolve("index-cache"))
                        .withReadAhead(READ_AHEAD_CHUNKS, zeroCopy()));
        return service.reader();
    }

    @AfterEach
    void close() {
        if (service != null) {
            service.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /** A local log of ~8 KiB segments holding 600 records in batches of 5, every rolled segment uploaded. */
    private List<RemoteSegmentMetadata> uploadedLog(PartitionLog log) throws Exception {
        TieredFixture.append(log, "v", 120, 5, 40, 0);
        return fixture.uploadRolled(log);
    }

    private static RemoteFetchRequest fetch(long offset, int maxBytes, boolean minOneBatch) {
        return new RemoteFetchRequest(PARTITION, offset, maxBytes, minOneBatch, OptionalInt.empty(), 0);
    }

    private static List<RecordBatch> batches(ByteBuffer records) {
        List<RecordBatch> out = new ArrayList<>();
        MemoryRecords.readableRecords(records.duplicate()).batches().forEach(out::add);
        return out;
    }

    @Test
    void readingFromOffsetZeroReturnsEverySegmentByteIdenticalToTheLocalFiles() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        PartitionLog log = fixture.newLog("a", 8192);
        List<RemoteSegmentMetadata> segments = uploadedLog(log);
        assertThat(segments).hasSizeGreaterThan(3);

        ByteArrayOutputStream local = new ByteArrayOutputStream();
        for (RemoteSegmentMetadata m : segments) {
            local.write(TieredFixture.localSegmentBytes(log, m.startOffset()));
        }
        ByteArrayOutputStream remote = new ByteArrayOutputStream();
        long offset = 0;
        long lastRemote = segments.get(segments.size() - 1).endOffset();
        for (int reads = 0; offset <= lastRemote; reads++) {
            assertThat(reads).as("reads").isLessThan(1000);
            RemoteFetchResult result = reader.read(fetch(offset, 3000, true));
            assertThat(result.sizeBytes()).isPositive();
            byte[] bytes = new byte[result.sizeBytes()];
            result.readBytes().get(bytes);
            remote.write(bytes);
            List<RecordBatch> got = batches(result.readBytes());
            assertThat(got.get(0).baseOffset()).isEqualTo(offset);
            offset = got.get(got.size() - 1).lastOffset() + 1;
        }
        assertThat(remote.toByteArray()).isEqualTo(local.toByteArray());
    }

    @Test
    void aFetchOffsetInsideABatchStartsWithThatWholeBatchAndEndsAtABatchBoundaryWithinMaxBytes() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        uploadedLog(fixture.newLog("a", 8192));

        RemoteFetchResult result = reader.read(fetch(37, 1000, true));

        List<RecordBatch> got = batches(result.readBytes());
        assertThat(got.get(0).baseOffset()).isEqualTo(35);
        assertThat(got.get(0).lastOffset()).isEqualTo(39);
        assertThat(result.sizeBytes()).isLessThanOrEqualTo(1000);
        int batchBytes = got.get(0).sizeInBytes();
        assertThat(result.sizeBytes()).isEqualTo((1000 / batchBytes) * batchBytes);
        for (int i = 1; i < got.size(); i++) {
            assertThat(got.get(i).baseOffset()).isEqualTo(got.get(i - 1).lastOffset() + 1);
        }
    }

    @Test
    void aFirstBatchLargerThanMaxBytesIsReturnedWholeOnlyUnderMinOneBatch() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        uploadedLog(fixture.newLog("a", 8192));

        RemoteFetchResult withMin = reader.read(fetch(10, 10, true));
        RemoteFetchResult without = reader.read(fetch(10, 10, false));

        assertThat(batches(withMin.readBytes())).hasSize(1);
        assertThat(batches(withMin.readBytes()).get(0).baseOffset()).isEqualTo(10);
        assertThat(without.sizeBytes()).isZero();
    }

    @Test
    void aReadStopsAtTheEndOfItsSegmentAndTheNextReadContinuesInTheNextSegment() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 8192));
        RemoteSegmentMetadata first = segments.get(0);

        RemoteFetchResult tail = reader.read(fetch(first.endOffset() - 2, 1 << 20, true));
        List<RecordBatch> got = batches(tail.readBytes());
        assertThat(got.get(got.size() - 1).lastOffset()).isEqualTo(first.endOffset());
        assertThat(tail.segment().segmentId()).isEqualTo(first.segmentId());

        RemoteFetchResult next = reader.read(fetch(first.endOffset() + 1, 1 << 20, true));
        assertThat(batches(next.readBytes()).get(0).baseOffset()).isEqualTo(first.endOffset() + 1);
        assertThat(next.segment().segmentId()).isEqualTo(segments.get(1).segmentId());
    }

    @Test
    void offsetsBelowTheLogStartOrBeyondEveryRemoteSegmentAreOutOfRange() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 8192));
        long beyond = segments.get(segments.size() - 1).endOffset() + 1;

        assertThatThrownBy(() -> reader.read(new RemoteFetchRequest(PARTITION, 5, 1000, true, OptionalInt.empty(), 50)))
                .isInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> reader.read(fetch(beyond, 1000, true))).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void theLeaderEpochOfTheOffsetPicksTheCopyWrittenInThatEpoch() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        // an old leader's copy of [0, 199] in epoch 0, and a new leader's divergent copy of [100, 199] in epoch 1
        PartitionLog oldLeader = fixture.newLog("old", 1 << 20);
        TieredFixture.append(oldLeader, "old", 40, 5, 10, 0);
        TieredFixture.append(oldLeader, "old", 1, 1, 10, 0); // active segment keeps offset 200
        PartitionLog newLeader = fixture.newLog("new", 1 << 20);
        TieredFixture.append(newLeader, "new", 20, 5, 10, 1);
        TieredFixture.append(newLeader, "new", 20, 5, 10, 1);
        fixture.upload(oldLeader, 0, 199, epochs(0, 0));
        // the new leader's records 100..199 sit in its first segment [0, 199]: upload it as a [0, 199] copy in epoch 1
        fixture.upload(newLeader, 0, 199, epochs(1, 0));

        assertThat(valueAt(reader.read(new RemoteFetchRequest(PARTITION, 150, 1000, true, OptionalInt.of(0), 0)), 150))
                .startsWith("old-150");
        assertThat(valueAt(reader.read(new RemoteFetchRequest(PARTITION, 150, 1000, true, OptionalInt.of(1), 0)), 150))
                .startsWith("new-150");
        // an epoch no copy holds falls back to a copy holding the offset (both start at 0 here: either may answer)
        assertThat(valueAt(reader.read(new RemoteFetchRequest(PARTITION, 150, 1000, true, OptionalInt.of(7), 0)), 150))
                .matches("(old|new)-150-.*");
    }

    private static String valueAt(RemoteFetchResult result, long offset) {
        for (RecordBatch batch : batches(result.readBytes())) {
            for (Record record : batch) {
                if (record.offset() == offset) {
                    return StandardCharsets.UTF_8.decode(record.value()).toString();
                }
            }
        }
        throw new AssertionError("offset " + offset + " not in the result");
    }

    @Test
    void indexesAreDownloadedOnceAndBothCachesStayWithinTheirBounds() throws Exception {
        long chunkCacheBytes = 3L * CHUNK_BYTES;
        RemoteLogReader reader = reader(chunkCacheBytes, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 8192));
        RemoteSegmentMetadata first = segments.get(0);

        reader.read(fetch(first.startOffset() + 20, 500, true));
        long downloads = service.indexDownloads();
        reader.read(fetch(first.startOffset() + 30, 500, true));
        assertThat(service.indexDownloads()).isEqualTo(downloads);

        for (RemoteSegmentMetadata m : segments) {
            reader.read(fetch(m.startOffset() + 7, 8192, true));
        }
        assertThat(service.cachedChunkBytes()).isLessThanOrEqualTo(chunkCacheBytes);
    }

    @Test
    void anIndexCacheSmallerThanTheIndexesEvictsAndStillAnswersCorrectly() throws Exception {
        long indexCacheBytes = 200;
        RemoteLogReader reader = reader(64 * 1024, indexCacheBytes);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 8192));

        for (int round = 0; round < 2; round++) {
            for (RemoteSegmentMetadata m : segments) {
                long offset = m.startOffset() + 12;
                assertThat(batches(reader.read(fetch(offset, 100, true)).readBytes())
                                .get(0)
                                .lastOffset())
                        .isGreaterThanOrEqualTo(offset);
            }
        }
        assertThat(service.cachedIndexBytes()).isLessThanOrEqualTo(indexCacheBytes);
        assertThat(service.indexDownloads()).isGreaterThan(segments.size());
    }

    @Test
    void aSequentialReadLoadsTheConfiguredDepthOfChunksAheadOfTheConsumerAndNoFurther() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 16384));
        RemoteSegmentMetadata first = segments.get(0);
        assertThat(first.segmentSizeBytes()).isGreaterThan((READ_AHEAD_CHUNKS + 1) * CHUNK_BYTES);

        reader.read(fetch(0, 500, true));

        for (int chunk = 1; chunk <= READ_AHEAD_CHUNKS; chunk++) {
            int c = chunk;
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.chunkCachedOrLoading(first, c));
        }
        assertThat(service.chunkCachedOrLoading(first, READ_AHEAD_CHUNKS + 1)).isFalse();
    }

    @Test
    void readAheadNearASegmentsEndContinuesWithTheNextSegmentsFirstChunks() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 16384));
        RemoteSegmentMetadata first = segments.get(0);
        RemoteSegmentMetadata second = segments.get(1);

        // a sequential consumer: small fetches from the segment's first offset to its end
        long offset = first.startOffset();
        RemoteFetchResult lastOfSegment = null;
        for (int reads = 0; offset <= first.endOffset(); reads++) {
            assertThat(reads).as("reads").isLessThan(1000);
            lastOfSegment = reader.read(fetch(offset, 500, true));
            offset = lastOfSegment.nextOffset();
        }

        assertThat(lastOfSegment.segment()).isEqualTo(first);
        // the read ends at the segment's end: the whole window of depth + 1 chunks lies in the next segment
        for (int chunk = 0; chunk <= READ_AHEAD_CHUNKS; chunk++) {
            int c = chunk;
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.chunkCachedOrLoading(second, c));
        }
        assertThat(service.chunkCachedOrLoading(second, READ_AHEAD_CHUNKS + 1)).isFalse();
    }

    @Test
    void aReadThatSeeksIntoASegmentReadsOnlyOneChunkAheadUntilItReadsOnSequentially() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 16384));
        RemoteSegmentMetadata first = segments.get(0);
        assertThat(first.segmentSizeBytes()).isGreaterThan((READ_AHEAD_CHUNKS + 1) * CHUNK_BYTES);

        // offset 6 lies in the first chunk, in the second batch: a seek, not a read from the segment's start
        RemoteFetchResult seek = reader.read(fetch(6, 200, true));

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.chunkCachedOrLoading(first, 1));
        assertThat(service.chunkCachedOrLoading(first, 2))
                .as("one chunk ahead only")
                .isFalse();

        reader.read(fetch(seek.nextOffset(), 200, true));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> service.chunkCachedOrLoading(first, 2));
    }

    @Test
    void aFetchOffsetInAGapCompactionLeftAtASegmentsTailIsAnsweredFromTheNextSegment() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        PartitionLog log = fixture.newLog("a", 8192);
        TieredFixture.append(log, "v", 120, 5, 40, 0);
        List<Long> bases = log.segmentBaseOffsets();
        assertThat(bases).hasSizeGreaterThan(3);
        // the first copy says it holds [b0, b2 - 1] but its batches end at b1 - 1: compaction emptied its tail
        fixture.upload(log, bases.get(0), bases.get(2) - 1, epochs(0, 0));
        RemoteSegmentMetadata third = fixture.upload(log, bases.get(2), bases.get(3) - 1, epochs(0, bases.get(2)));

        RemoteFetchResult inGap = reader.read(fetch(bases.get(1) + 3, 1 << 20, true));

        assertThat(inGap.segment()).isEqualTo(third);
        List<RecordBatch> got = batches(inGap.readBytes());
        assertThat(got.get(0).baseOffset()).isEqualTo(bases.get(2));
        assertThat(got.get(got.size() - 1).lastOffset()).isEqualTo(bases.get(3) - 1);
        assertThat(inGap.nextOffset()).isEqualTo(bases.get(3));
    }

    @Test
    void anAnswerCrossingChunkBoundariesIsByteIdenticalToTheLocalSegment() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        PartitionLog log = fixture.newLog("a", 16384);
        List<RemoteSegmentMetadata> segments = uploadedLog(log);
        RemoteSegmentMetadata first = segments.get(0);
        assertThat(first.segmentSizeBytes()).isGreaterThan(2 * CHUNK_BYTES);

        RemoteFetchResult whole = reader.read(fetch(first.startOffset(), first.segmentSizeBytes(), true));

        assertThat(whole.sizeBytes()).isEqualTo(first.segmentSizeBytes());
        byte[] got = new byte[whole.sizeBytes()];
        whole.readBytes().get(got);
        assertThat(got).isEqualTo(TieredFixture.localSegmentBytes(log, first.startOffset()));
        assertThat(whole.nextOffset()).isEqualTo(first.endOffset() + 1);
    }

    @Test
    void fetchesAreAnsweredFromTheObjectsFileOnlyInZeroCopyMode() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        uploadedLog(fixture.newLog("a", 8192));

        RemoteFetchResult result = reader.read(fetch(10, 1000, true));

        assertThat(result.records())
                .isInstanceOf(zeroCopy() ? RemoteRecords.InFile.class : RemoteRecords.InMemory.class);
        if (zeroCopy()) {
            assertThat(service.openRemoteFiles()).isPositive();
        } else {
            assertThat(service.openRemoteFiles()).isZero();
        }
    }

    @Test
    void timeLookupsFindTheFirstBatchReachingATimestampAndTheMaxTimestampBatch() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        List<RemoteSegmentMetadata> segments = uploadedLog(fixture.newLog("a", 8192));
        long lastRemote = segments.get(segments.size() - 1).endOffset();

        Optional<RemoteBatch> at = reader.firstBatchWithTimestampAtLeast(
                PARTITION, TieredFixture.BASE_TIMESTAMP_MS + 123, 0, Long.MAX_VALUE);
        assertThat(at).isPresent();
        assertThat(at.get().header().baseOffset()).isEqualTo(120);
        assertThat(at.get().header().lastOffset()).isEqualTo(124);
        assertThat(batches(at.get().bytes())).hasSize(1);

        assertThat(reader.firstBatchWithTimestampAtLeast(PARTITION, TieredFixture.BASE_TIMESTAMP_MS + 123, 0, 100))
                .isEmpty();
        assertThat(reader.firstBatchWithTimestampAtLeast(
                                PARTITION, TieredFixture.BASE_TIMESTAMP_MS + 5, 50, Long.MAX_VALUE)
                        .orElseThrow()
                        .header()
                        .baseOffset())
                .isEqualTo(50);

        RemoteBatch max = reader.maxTimestampBatch(PARTITION, 0, Long.MAX_VALUE).orElseThrow();
        assertThat(max.header().lastOffset()).isEqualTo(lastRemote);
        assertThat(max.header().maxTimestamp()).isEqualTo(TieredFixture.BASE_TIMESTAMP_MS + lastRemote);
        assertThat(reader.maxTimestampBatch(PARTITION, 0, segments.get(1).startOffset())
                        .orElseThrow()
                        .header()
                        .lastOffset())
                .isEqualTo(segments.get(0).endOffset());
    }

    @Test
    void aSegmentShorterThanItsMetadataFailsTheReadInsteadOfServingGarbage() throws Exception {
        RemoteLogReader reader = reader(64 * 1024, 1 << 20);
        PartitionLog log = fixture.newLog("a", 8192);
        TieredFixture.append(log, "v", 120, 5, 40, 0);
        List<Long> bases = log.segmentBaseOffsets();
        RemoteSegmentMetadata m = fixture.upload(log, bases.get(0), bases.get(1) - 1, epochs(0, 0));
        try (Stream<Path> objects = Files.walk(fixture.storage.root())) {
            for (Path object :
                    objects.filter(p -> p.toString().endsWith(".log")).toList()) {
                try (FileChannel channel = FileChannel.open(object, StandardOpenOption.WRITE)) {
                    channel.truncate(m.segmentSizeBytes() - 10);
                }
            }
        }

        assertThatThrownBy(() -> reader.read(fetch(m.endOffset(), 1 << 20, true)))
                .isInstanceOf(RemoteStorageException.class);
    }
}
