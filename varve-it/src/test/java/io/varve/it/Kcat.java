package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** kcat (librdkafka's command-line client) as the tests run it: where it is installed, and one finished run. */
public final class Kcat {
    public static final Path PATH = Path.of("/usr/bin/kcat");

    /** What a finished kcat run printed. */
    public record Result(int exitCode, String stdout, String stderr) {
        public List<String> lines() {
            return stdout.lines().toList();
        }
    }

    private Kcat() {}

    /** Skips the calling test where kcat is not installed. */
    public static void assumeInstalled() {
        Assumptions.assumeTrue(Files.isExecutable(PATH), "kcat is not installed at " + PATH);
    }

    /**
     * Runs kcat with {@code args} (the broker's address and any security settings among them) and {@code stdin} (or
     * none), waiting at most 30 s; its output goes through files in {@code workDir}.
     */
    public static Result run(Path workDir, String stdin, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(PATH.toString()));
        command.addAll(args);
        File out = Files.createTempFile(workDir, "kcat", ".out").toFile();
        File err = Files.createTempFile(workDir, "kcat", ".err").toFile();
        Process process = new ProcessBuilder(command)
                .redirectOutput(out)
                .redirectError(err)
                .start();
        try {
            try (OutputStream in = process.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(UTF_8));
                }
            } catch (IOException e) {
                // kcat exited before reading its input; its exit code and stderr tell why
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new AssertionError("kcat " + String.join(" ", args) + " did not finish within 30 s; stderr: "
                        + Files.readString(err.toPath()));
            }
            return new Result(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
        } finally {
            process.destroyForcibly();
        }
    }
}
