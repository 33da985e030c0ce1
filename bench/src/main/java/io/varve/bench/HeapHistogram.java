package io.varve.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A broker's live heap, from {@code jmap -histo:live} of the broker's own JDK: the JVM runs a full collection first, so
 * only reachable objects count, whatever the heap's size. The whole histogram (instances and bytes per class) stays in
 * the run's logs, which is where "what holds memory per partition" is read from.
 */
public final class HeapHistogram {

    private static final Pattern TOTAL = Pattern.compile("(?m)^Total\\s+(\\d+)\\s+(\\d+)\\s*$");
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private HeapHistogram() {
    }

    /** Bytes of live objects in {@code pid}'s heap; the histogram is written to {@code histogramFile}. */
    public static long liveBytes(Path jmap, long pid, Path histogramFile, Path workDir) throws IOException {
        ChildProcesses.Outcome outcome = ChildProcesses.run(
                List.of(jmap.toString(), "-histo:live", Long.toString(pid)), workDir, histogramFile, TIMEOUT);
        if (!outcome.ok()) {
            throw new IOException("jmap -histo:live " + pid + " failed:\n" + outcome.tail(5));
        }
        Matcher total = TOTAL.matcher(outcome.output());
        if (!total.find()) {
            throw new IOException("jmap printed no Total line; see " + histogramFile);
        }
        return Long.parseLong(total.group(2));
    }
}
