package io.varve.tiered.read;

import static io.varve.tiered.read.TieredFixture.epochs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.PartitionLog;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteResourceNotFoundException;
import io.varve.tiered.spi.RemoteStorage;
import java.lang.reflect.Proxy;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemoteFileChannelsTest {
    @TempDir
    Path dir;

    private TieredFixture fixture;

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private List<RemoteSegmentMetadata> uploaded() throws Exception {
        fixture = new TieredFixture(dir);
        PartitionLog log = fixture.newLog("a", 8192);
        TieredFixture.append(log, "v", 60, 5, 40, 0);
        List<Long> bases = log.segmentBaseOffsets();
        return List.of(
                fixture.upload(log, bases.get(0), bases.get(1) - 1, epochs(0, 0)),
                fixture.upload(log, bases.get(1), bases.get(2) - 1, epochs(0, bases.get(1))));
    }

    @Test
    void aSegmentsChannelIsOpenedOnceAndSharedByLaterReads() throws Exception {
        List<RemoteSegmentMetadata> segments = uploaded();
        try (RemoteFileChannels channels = new RemoteFileChannels(fixture.storage, 8)) {
            FileChannel first = channels.channel(segments.get(0)).orElseThrow();
            assertThat(channels.channel(segments.get(0)).orElseThrow()).isSameAs(first);
            assertThat(first.size()).isEqualTo(segments.get(0).segmentSizeBytes());
            assertThat(channels.openFiles()).isEqualTo(1);
        }
    }

    @Test
    void aChannelPushedOutOfTheCacheStaysOpenForResponsesInFlightUntilShutdown() throws Exception {
        List<RemoteSegmentMetadata> segments = uploaded();
        RemoteFileChannels channels = new RemoteFileChannels(fixture.storage, 1);
        FileChannel first = channels.channel(segments.get(0)).orElseThrow();
        FileChannel second = channels.channel(segments.get(1)).orElseThrow();

        assertThat(channels.openFiles()).isEqualTo(1);
        assertThat(first.isOpen()).as("evicted, but within its grace period").isTrue();

        channels.close();
        assertThat(first.isOpen()).isFalse();
        assertThat(second.isOpen()).isFalse();
    }

    @Test
    void aDeletedObjectIsNotFoundAndABackendWithoutLocalFilesHasNoChannels() throws Exception {
        List<RemoteSegmentMetadata> segments = uploaded();
        Path file = fixture.storage.logSegmentFile(segments.get(1)).orElseThrow();
        Files.delete(file);
        RemoteStorage networked = (RemoteStorage) Proxy.newProxyInstance(
                RemoteStorage.class.getClassLoader(), new Class<?>[] {RemoteStorage.class}, (proxy, method, args) -> {
                    if (method.isDefault()) {
                        return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        try (RemoteFileChannels channels = new RemoteFileChannels(fixture.storage, 8);
                RemoteFileChannels none = new RemoteFileChannels(networked, 8)) {
            assertThatThrownBy(() -> channels.channel(segments.get(1)))
                    .isInstanceOf(RemoteResourceNotFoundException.class);
            assertThat(none.channel(segments.get(0))).isEqualTo(Optional.empty());
        }
    }
}
