package io.varve.tiered.s3;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible server for tests: s3proxy with its jclouds filesystem store, started as a separate JVM on
 * 127.0.0.1 with its own classpath ({@code target/s3proxy-lib}, resolved by the build from
 * {@code src/test/s3proxy/pom.xml}), and stopped by its PID. Shared with varve-it through this module's test-jar.
 */
public final class S3ProxyProcess implements AutoCloseable {
    public static final String ACCESS_KEY = "varve-test";
    public static final String SECRET_KEY = "varve-test-secret";
    private static final long START_TIMEOUT_MS = 30_000;

    private final Process process;
    private final int port;
    private final Path logFile;

    private S3ProxyProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.logFile = logFile;
    }

    /** The directory with s3proxy's jars, if the build resolved them. */
    public static Optional<Path> libDir() {
        Path dir = Path.of(System.getProperty("varve.s3proxy.lib", "target/s3proxy-lib"));
        return Files.isRegularFile(dir.resolve("s3proxy-4.1.0.jar")) ? Optional.of(dir) : Optional.empty();
    }

    public static S3ProxyProcess start(Path libDir, Path workDir) throws IOException, InterruptedException {
        return start(libDir, workDir, freePort());
    }

    /** Starts on {@code port} with its data under {@code workDir}: the same arguments again restart a stopped one. */
    public static S3ProxyProcess start(Path libDir, Path workDir, int port) throws IOException, InterruptedException {
        Path data = Files.createDirectories(workDir.resolve("data"));
        Path config = workDir.resolve("s3proxy.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "s3proxy.endpoint=http://127.0.0.1:" + port,
                        "s3proxy.authorization=aws-v2-or-v4",
                        "s3proxy.identity=" + ACCESS_KEY,
                        "s3proxy.credential=" + SECRET_KEY,
                        "jclouds.provider=filesystem",
                        "jclouds.filesystem.basedir=" + data.toAbsolutePath(),
                        ""));
        Path logFile = workDir.resolve("s3proxy.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(
                        java,
                        "-Xmx256m",
                        "-DLOG_LEVEL=warn",
                        "-cp",
                        libDir.toAbsolutePath() + "/*",
                        "org.gaul.s3proxy.Main",
                        "--properties",
                        config.toString()))
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .start();
        S3ProxyProcess proxy = new S3ProxyProcess(process, port, logFile);
        // if the test JVM exits without @AfterAll (Ctrl-C, assertion in setup), still stop the child by its PID
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.of(process.pid())
                .ifPresent(ProcessHandle::destroy)));
        try {
            proxy.awaitListening();
        } catch (IOException | InterruptedException | RuntimeException e) {
            proxy.close();
            throw e;
        }
        return proxy;
    }

    private void awaitListening() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("s3proxy exited with " + process.exitValue() + ": " + tail());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                process.waitFor(50, TimeUnit.MILLISECONDS); // a bounded pause that ends early if it dies
            }
        }
        throw new IOException(
                "s3proxy did not listen on port " + port + " within " + START_TIMEOUT_MS + " ms: " + tail());
    }

    private String tail() {
        try {
            String log = Files.readString(logFile);
            return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        ProcessHandle handle = ProcessHandle.of(process.pid()).orElse(null);
        if (handle == null) {
            return;
        }
        handle.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                handle.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            handle.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
