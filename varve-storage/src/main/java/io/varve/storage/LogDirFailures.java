package io.varve.storage;

import io.varve.storage.fs.IoErrors;
import io.varve.storage.segment.CorruptSegmentException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Which log dirs have failed, who hears of a failure, and what counts as one: an I/O error that is neither a lack of
 * resources (descriptors, map areas: retried) nor corrupt content (that takes one log offline, not its dir).
 */
final class LogDirFailures {

    static {
        // Load the classes that judge a failure now, while files can be opened: when a class is first needed only
        // once descriptors have run out, loading it fails (a class path of directories opens a file per class) and
        // the failure would escape as an Error instead of being judged retriable.
        isDiskFault(new IOException("class preload"));
        isDiskFault(new CorruptSegmentException("class preload"));
    }

    private final List<Path> logDirs;
    private final Set<Path> offline = ConcurrentHashMap.newKeySet();
    private volatile Consumer<Path> listener = dir -> {};

    LogDirFailures(List<Path> logDirs) {
        this.logDirs = logDirs;
    }

    /** True when {@code failure} says the disk under a log dir is failing (no space, EIO …). */
    static boolean isDiskFault(Throwable failure) {
        if (IoErrors.isResourceExhaustion(failure)) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException && !(t instanceof CorruptSegmentException)) {
                return true;
            }
        }
        return false;
    }

    /** Records {@code dir} (one of the log dirs) as failed; false when it is not one or had failed already. */
    boolean markOffline(Path dir) {
        Path failed = dir.toAbsolutePath().normalize();
        return logDirs.contains(failed) && offline.add(failed);
    }

    boolean isOffline(Path dir) {
        return offline.contains(dir.toAbsolutePath().normalize());
    }

    Set<Path> offlineDirs() {
        return Set.copyOf(offline);
    }

    int onlineCount() {
        return logDirs.size() - offline.size();
    }

    void onFailure(Consumer<Path> newListener) {
        this.listener = Objects.requireNonNull(newListener, "listener");
    }

    void tellListener(Path dir) {
        listener.accept(dir.toAbsolutePath().normalize());
    }
}
