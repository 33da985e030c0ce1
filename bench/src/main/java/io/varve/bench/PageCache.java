package io.varve.bench;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Evicts one broker's segment files from the page cache without root and without touching anyone else's
 * cache: each file is fsynced (dirty pages cannot be evicted) and then dropped with
 * {@code dd iflag=nocache count=0}, which is posix_fadvise(POSIX_FADV_DONTNEED) on the whole file.
 */
public final class PageCache {

    private PageCache() {
    }

    /** Returns how many segment files were dropped; throws when the machine does not let us. */
    public static int dropSegments(Path dataDir) throws IOException {
        List<Path> segments;
        try (Stream<Path> paths = Files.walk(dataDir)) {
            segments = paths.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .filter(p -> !p.toString().contains("__cluster_metadata"))
                    .filter(Files::isRegularFile)
                    .toList();
        }
        for (Path segment : segments) {
            try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
                channel.force(true);
            }
            Process dd = new ProcessBuilder("dd", "if=" + segment, "iflag=nocache", "count=0", "status=none")
                    .redirectErrorStream(true).start();
            try {
                if (!dd.waitFor(30, TimeUnit.SECONDS)) {
                    dd.destroyForcibly();
                    throw new IOException("dd did not finish dropping " + segment);
                }
            } catch (InterruptedException e) {
                dd.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (dd.exitValue() != 0) {
                throw new IOException("dd iflag=nocache failed on " + segment + ": "
                        + new String(dd.getInputStream().readAllBytes()).trim());
            }
        }
        return segments.size();
    }
}
