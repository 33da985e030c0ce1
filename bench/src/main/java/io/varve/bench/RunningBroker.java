package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** One broker process the harness started: its PID, port, data directory and log. */
public final class RunningBroker implements AutoCloseable {

    public static final String HOST = "127.0.0.1";
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);

    private final BrokerKind kind;
    private final Process process;
    private final int port;
    private final Path dataDir;
    private final Path logFile;
    private final long startNanos;
    /** Varve's HTTP listener (/metrics), or -1 when the harness did not give it one. */
    private final int httpPort;

    RunningBroker(BrokerKind kind, Process process, int port, Path dataDir, Path logFile, long startNanos) {
        this(kind, process, port, dataDir, logFile, startNanos, -1);
    }

    RunningBroker(BrokerKind kind, Process process, int port, Path dataDir, Path logFile, long startNanos,
                  int httpPort) {
        this.httpPort = httpPort;
        this.kind = kind;
        this.process = process;
        this.port = port;
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.startNanos = startNanos;
    }

    /** The port of Varve's /metrics; -1 for Kafka. */
    public int httpPort() {
        return httpPort;
    }

    public BrokerKind kind() {
        return kind;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public String bootstrap() {
        return HOST + ":" + port;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** {@link System#nanoTime()} just before the process was started. */
    public long startNanos() {
        return startNanos;
    }

    public WireProbe probe() {
        return new WireProbe(HOST, port);
    }

    public double cpuSeconds() throws IOException {
        return ProcStats.cpuSeconds(pid());
    }

    public long peakRssBytes() throws IOException {
        return ProcStats.peakRssBytes(pid());
    }

    /**
     * Polls until the broker answers ApiVersions and lists itself in Metadata, and returns the milliseconds
     * since process start. Fails when the process dies or {@code timeout} passes.
     */
    public long awaitReady(Duration timeout) throws IOException {
        return awaitMetadata(timeout, summary -> summary.brokers() >= 1, "list itself in Metadata");
    }

    /** Polls Metadata until {@code condition} holds; returns the milliseconds since process start. */
    public long awaitMetadata(Duration timeout, java.util.function.Predicate<WireProbe.MetadataSummary> condition,
                              String what) throws IOException {
        WireProbe probe = probe();
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        WireProbe.MetadataSummary last = null;
        while (System.nanoTime() < deadlineNanos) {
            if (!process.isAlive()) {
                throw new IOException(kind.displayName() + " (pid " + pid() + ") exited with code " + process.exitValue()
                        + " before it could " + what + "; log " + logFile + ":\n" + logTail(30));
            }
            last = probe.metadataOrNull();
            if (last != null && condition.test(last)) {
                return (System.nanoTime() - startNanos) / 1_000_000;
            }
            pause(5);
        }
        throw new IOException(kind.displayName() + " did not " + what + " within " + timeout.toSeconds()
                + " s (last Metadata: " + last + "); log " + logFile + ":\n" + logTail(30));
    }

    /** Milliseconds from process start to the first error-free ApiVersions answer. */
    public long awaitApiVersions(Duration timeout) throws IOException {
        WireProbe probe = probe();
        long deadlineNanos = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadlineNanos) {
            if (!process.isAlive()) {
                throw new IOException(kind.displayName() + " exited before answering ApiVersions:\n" + logTail(30));
            }
            if (probe.apiVersionsAnswered()) {
                return (System.nanoTime() - startNanos) / 1_000_000;
            }
            pause(2);
        }
        throw new IOException(kind.displayName() + " did not answer ApiVersions within " + timeout.toSeconds() + " s");
    }

    /** SIGTERM to this PID (both brokers shut down cleanly on it), SIGKILL after a grace period. */
    public void stop() {
        ChildProcesses.stop(process, STOP_GRACE);
    }

    /** SIGKILL to this PID at once (a crash: no shutdown hook, no clean stop). */
    public void killNow() {
        process.destroyForcibly();
    }

    @Override
    public void close() {
        stop();
    }

    public String logTail(int lines) {
        try {
            var all = Files.readAllLines(logFile);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);  // polling interval of a bounded readiness loop, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a broker", e);
        }
    }
}
