package io.varve.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** {@code varve server} as a child JVM on the test classpath, with its output in files under a work dir. */
public final class ServerProcess implements AutoCloseable {
    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final int port;

    private ServerProcess(Process process, Path stdout, Path stderr, int port) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.port = port;
    }

    /** Starts a server; {@code port} may be -1 when the arguments carry their own listeners. */
    public static ServerProcess start(Path workDir, String name, int port, String... args) throws IOException {
        return start(List.of(), workDir, name, port, args);
    }

    /**
     * {@link #start(Path, String, int, String...)} under a launcher, for example {@code prlimit --nofile=1200:20000
     * --}: the launcher execs the JVM, so the process and its PID are the server's.
     */
    public static ServerProcess start(List<String> launcher, Path workDir, String name, int port, String... args)
            throws IOException {
        return start(launcher, List.of(), workDir, name, port, args);
    }

    /** {@link #start(List, Path, String, int, String...)} with extra JVM options. */
    public static ServerProcess start(
            List<String> launcher, List<String> jvmOptions, Path workDir, String name, int port, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(launcher);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.varve.cli.Varve",
                "server"));
        command.addAll(List.of(args));
        Files.createDirectories(workDir);
        Path out = workDir.resolve(name + ".out");
        Path err = workDir.resolve(name + ".err");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        return new ServerProcess(process, out, err, port);
    }

    /** Starts a server listening on a free loopback port with its data in {@code logDir}. */
    public static ServerProcess startOnFreePort(Path workDir, String name, Path logDir, String... extraArgs)
            throws IOException {
        int port = freePort();
        List<String> args = new ArrayList<>(
                List.of("--override", "listeners=PLAINTEXT://127.0.0.1:" + port, "--override", "log.dirs=" + logDir));
        args.addAll(List.of(extraArgs));
        return start(workDir, name, port, args.toArray(String[]::new));
    }

    public Process process() {
        return process;
    }

    public int port() {
        return port;
    }

    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public File stderrFile() {
        return stderr.toFile();
    }

    /** Waits (at most 30 s) until a KafkaProducer's send to the server is acknowledged. */
    public ServerProcess awaitReady() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "3000");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .pollInSameThread()
                    .failFast("the server process exited", () -> !process.isAlive())
                    .ignoreExceptions()
                    .until(() -> producer.send(new ProducerRecord<>("process-check", "ping".getBytes(UTF_8)))
                            .get(5, TimeUnit.SECONDS)
                            .hasOffset());
        }
        return this;
    }

    /** SIGTERM; true when it exited within the timeout. */
    public boolean terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed by the process. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public String output() throws IOException {
        return "stdout:\n" + Files.readString(stdout) + "\nstderr:\n" + Files.readString(stderr);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
