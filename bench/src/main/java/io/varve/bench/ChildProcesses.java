package io.varve.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every process the harness starts goes through here, so that each one is stopped by its own PID:
 * on normal completion, on a timeout, and from a shutdown hook when the harness itself is interrupted.
 */
public final class ChildProcesses {

    /** What a bounded child run left behind. */
    public record Outcome(int exitCode, boolean timedOut, String output, Path logFile, long elapsedMillis) {
        public boolean ok() {
            return !timedOut && exitCode == 0;
        }

        /** The last lines of the output, for error messages. */
        public String tail(int lines) {
            String[] all = output.split("\n");
            int from = Math.max(0, all.length - lines);
            return String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
        }
    }

    private static final Duration STOP_GRACE = Duration.ofSeconds(60);
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
    private static volatile Path pidFile;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "bench-cleanup"));
    }

    private ChildProcesses() {
    }

    /**
     * Keeps the PIDs of live children in {@code file}, so that bench/run can stop them by PID should this
     * JVM be killed without running its shutdown hook.
     */
    public static void recordPidsIn(Path file) throws IOException {
        pidFile = file;
        writePids();
    }

    /** Starts {@code command} with stdout and stderr going to {@code logFile}; the caller owns stopping it. */
    public static Process start(List<String> command, Path workDir, Path logFile) throws IOException {
        Files.createDirectories(logFile.getParent());
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process process = builder.start();
        LIVE.add(process);
        writePids();
        return process;
    }

    /** Runs {@code command} to completion or until {@code timeout}, whichever comes first. */
    public static Outcome run(List<String> command, Path workDir, Path logFile, Duration timeout) throws IOException {
        long startNanos = System.nanoTime();
        Process process = start(command, workDir, logFile);
        boolean finished;
        try {
            finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finished = false;
        }
        if (!finished) {
            stop(process, Duration.ofSeconds(5));
        } else {
            forget(process);
        }
        long elapsedMillis = (System.nanoTime() - startNanos) / 1_000_000;
        String output = Files.readString(logFile, StandardCharsets.UTF_8);
        return new Outcome(finished ? process.exitValue() : -1, !finished, output, logFile, elapsedMillis);
    }

    /** SIGTERM to this PID, then SIGKILL to the same PID when it has not exited within {@code grace}. */
    public static void stop(Process process, Duration grace) {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    System.err.println("bench: pid " + process.pid() + " ignored SIGTERM for " + grace.toSeconds()
                            + " s; sending SIGKILL");
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        forget(process);
    }

    private static void forget(Process process) {
        LIVE.remove(process);
        writePids();
    }

    private static synchronized void writePids() {
        Path file = pidFile;
        if (file == null) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (Process process : LIVE) {
            text.append(process.pid()).append('\n');
        }
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            System.err.println("bench: cannot write " + file + ": " + e.getMessage());
        }
    }

    /** Stops whatever is still running, newest first (tools before the broker they talk to). */
    static void stopAll() {
        List<Process> left = new ArrayList<>(LIVE);
        if (!left.isEmpty()) {
            System.err.println("bench: stopping " + left.size() + " child process(es) left running");
        }
        for (int i = left.size() - 1; i >= 0; i--) {
            stop(left.get(i), STOP_GRACE);
        }
    }
}
