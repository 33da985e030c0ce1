package io.varve.tiered.fs;

import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageContractTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemRemoteStorageTest extends RemoteStorageContractTest {
    @TempDir
    Path bucket;

    @Override
    protected RemoteStorage createStorage() {
        return new FileSystemRemoteStorage(bucket, "cluster-1/");
    }

    private List<String> objects() throws IOException {
        try (Stream<Path> files = Files.walk(bucket)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> bucket.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void objectsAreLaidOutByTopicIdPartitionAndZeroPaddedOffset() throws Exception {
        RemoteSegmentMetadata m = segment(4242, 5000);
        storage.copySegment(m, localSegment("layout", 100, true));
        String base = "cluster-1/orders-AAAAAAAAAAAAAAAAAAAAAQ/3/00000000000000004242-"
                + m.segmentId().id() + ".";
        assertThat(objects())
                .containsExactly(
                        base + "index",
                        base + "leader_epoch_checkpoint",
                        base + "log",
                        base + "snapshot",
                        base + "timeindex",
                        base + "txnindex");
    }

    @Test
    void aCrashedUploadLeavesOnlyTemporaryFilesWhichDeleteRemoves() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        storage.copySegment(m, localSegment("crash", 100, false));
        Path log = bucket.resolve(new io.varve.tiered.spi.ObjectKeys("cluster-1").logKey(m));
        // what a crash between write and rename leaves behind
        Files.writeString(log.resolveSibling(log.getFileName() + ".tmp-" + java.util.UUID.randomUUID()), "half");
        storage.deleteSegment(m);
        assertThat(objects()).isEmpty();
    }

    @Test
    void aSuccessfulCopyLeavesNoTemporaryFiles() throws Exception {
        storage.copySegment(segment(0, 99), localSegment("clean", 100_000, true));
        assertThat(objects()).hasSize(6).noneMatch(name -> name.contains(".tmp-"));
    }
}
