package io.varve.tiered.manager;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The test-only {@link RemoteLogManagerConfig.TestPause}: at the configured point, writes the marker file and
 * blocks the calling upload thread (bounded, ten minutes) so the test can SIGKILL the process there. Without a
 * pause configured every call returns at once.
 */
final class FaultPoints {
    private static final Logger log = LoggerFactory.getLogger(FaultPoints.class);
    private static final long PAUSE_LIMIT_MINUTES = 10;

    private final Optional<RemoteLogManagerConfig.TestPause> pause;
    private final CountDownLatch released = new CountDownLatch(1);

    FaultPoints(Optional<RemoteLogManagerConfig.TestPause> pause) {
        this.pause = pause;
    }

    void reached(String point, Object what) {
        if (pause.isEmpty() || !pause.get().point().equals(point)) {
            return;
        }
        log.warn("Test pause {} reached at {}: remote log manager stops here", point, what);
        try {
            Files.writeString(pause.get().markerFile(), point + " " + what + "\n", StandardCharsets.UTF_8);
            released.await(PAUSE_LIMIT_MINUTES, TimeUnit.MINUTES);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "could not write test pause marker " + pause.get().markerFile(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("test pause " + point + " released");
    }

    /** Unblocks paused threads (on close), which then fail their task. */
    void release() {
        released.countDown();
    }
}
