package io.varve.tiered.read;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteResourceNotFoundException;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Open read-only channels on the files of remote log objects, for backends that keep objects as local files ({@link
 * RemoteStorage#logSegmentFile}). At most {@code maxOpenFiles} stay open, each until unused for a few minutes.
 *
 * <p>A channel handed out may still be in a fetch response that a network thread is sending with sendfile, and
 * closing it then would fail that send. So a channel leaving the cache is closed only after {@link #CLOSE_GRACE} (as
 * Kafka deletes local segment files only after {@code file.delete.delay.ms}); a response still unsent by then closes
 * its connection and the client fetches again. A deleted object's open channel keeps reading its old bytes, which
 * are the same bytes: segments are immutable.
 */
final class RemoteFileChannels implements Closeable {
    /** How long a channel that left the cache stays open for responses still being sent. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(60);

    private static final Duration IDLE = Duration.ofMinutes(5);

    private final RemoteStorage storage;
    private final Cache<RemoteSegmentId, FileChannel> open;
    private final ScheduledExecutorService closer;
    /** Channels out of the cache whose grace period runs; closed at once on shutdown. */
    private final Set<FileChannel> closing = ConcurrentHashMap.newKeySet();

    RemoteFileChannels(RemoteStorage storage, int maxOpenFiles) {
        this.storage = Objects.requireNonNull(storage, "storage");
        ScheduledThreadPoolExecutor closer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "varve-remote-file-closer");
            t.setDaemon(true);
            return t;
        });
        this.closer = closer;
        this.open = Caffeine.newBuilder()
                .maximumSize(maxOpenFiles)
                .expireAfterAccess(IDLE)
                .executor(Runnable::run)
                .removalListener((RemoteSegmentId id, FileChannel channel, RemovalCause cause) -> closeLater(channel))
                .build();
    }

    /**
     * An open channel on the segment's log object, or empty when the backend keeps no local file for it.
     *
     * @throws RemoteResourceNotFoundException the object's file is gone
     */
    Optional<FileChannel> channel(RemoteSegmentMetadata segment) throws RemoteStorageException {
        FileChannel cached = open.getIfPresent(segment.segmentId());
        if (cached != null && cached.isOpen()) {
            return Optional.of(cached);
        }
        Optional<Path> file = storage.logSegmentFile(segment);
        if (file.isEmpty()) {
            return Optional.empty();
        }
        FileChannel opened;
        try {
            opened = FileChannel.open(file.get(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new RemoteResourceNotFoundException(
                    "no object " + file.get().getFileName() + " for remote segment " + segment.segmentId(), e);
        } catch (IOException e) {
            throw new RemoteStorageException("opening " + file.get() + " failed: " + e, e, true);
        }
        FileChannel raced = open.asMap().putIfAbsent(segment.segmentId(), opened);
        if (raced != null && raced.isOpen()) {
            closeQuietly(opened);
            return Optional.of(raced);
        }
        if (raced != null) {
            open.put(segment.segmentId(), opened); // a closed one slipped in: replace it
        }
        return Optional.of(opened);
    }

    /** Channels open now (tests). */
    long openFiles() {
        open.cleanUp();
        return open.estimatedSize();
    }

    private void closeLater(FileChannel channel) {
        if (channel == null) {
            return;
        }
        closing.add(channel);
        try {
            closer.schedule(
                    () -> {
                        closing.remove(channel);
                        closeQuietly(channel);
                    },
                    CLOSE_GRACE.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            closing.remove(channel);
            closeQuietly(channel); // shutting down
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // read-only: nothing to lose
        }
    }

    /** Closes every channel at once: the broker is stopping and sends nothing more. */
    @Override
    public void close() {
        closer.shutdownNow();
        open.asMap().values().forEach(RemoteFileChannels::closeQuietly);
        open.invalidateAll();
        closing.forEach(RemoteFileChannels::closeQuietly);
        closing.clear();
    }
}
