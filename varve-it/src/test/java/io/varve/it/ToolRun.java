package io.varve.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One run of a command-line tool's main class (Kafka 4.4's tools, Varve's own CLI) in its own small JVM on the tests'
 * class path, as a user runs it: its exit code ({@code -1} when it did not end in time) and its output, stdout and
 * stderr together.
 */
public record ToolRun(int exitCode, String output) {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** Runs {@code mainClass} with {@code args}, waiting up to 60 s; its output goes through a file in {@code workDir}. */
    public static ToolRun run(Path workDir, String mainClass, String... args) throws IOException, InterruptedException {
        return run(workDir, DEFAULT_TIMEOUT, mainClass, List.of(args));
    }

    /** As {@link #run(Path, String, String...)}, waiting up to {@code timeout}. */
    public static ToolRun run(Path workDir, Duration timeout, String mainClass, List<String> args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(args);
        Path out = Files.createTempFile(workDir, "tool", ".out");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return new ToolRun(-1, Files.readString(out));
        }
        return new ToolRun(process.exitValue(), Files.readString(out));
    }

    /** Writes {@code content} (a tool's JSON input: a reassignment plan, offsets …) to {@code workDir}; its path. */
    public static String inputFile(Path workDir, String name, String content) throws IOException {
        return Files.writeString(workDir.resolve(name), content).toString();
    }

    /** This run with only the tool's own lines: the log lines of the admin client inside it start with a time stamp. */
    public ToolRun withoutLogLines() {
        String kept = output.lines()
                .filter(l -> !l.matches("^\\d\\d:\\d\\d:\\d\\d.*"))
                .map(l -> l + "\n")
                .collect(Collectors.joining());
        return new ToolRun(exitCode, kept);
    }
}
