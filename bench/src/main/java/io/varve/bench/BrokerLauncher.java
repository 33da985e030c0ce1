package io.varve.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Starts either broker as a single node on 127.0.0.1, with the same JVM options, the same data disk (a
 * directory under bench/work/data) and the same shared settings. Kafka additionally gets what KRaft needs
 * to run as its own one-voter controller; its storage is formatted once per harness run with Kafka's
 * StorageTool and copied for each fresh start.
 */
public final class BrokerLauncher {

    /** Settings both brokers get, with the values Kafka's own single-node example configuration uses. */
    static final Map<String, String> SHARED_SETTINGS = sharedSettings();
    private static final Duration FORMAT_TIMEOUT = Duration.ofMinutes(2);

    private final BenchOptions options;
    private Path kafkaTemplate;

    public BrokerLauncher(BenchOptions options) {
        this.options = options;
    }

    private static Map<String, String> sharedSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("node.id", "1");
        settings.put("num.partitions", "6");
        settings.put("default.replication.factor", "1");
        settings.put("offsets.topic.replication.factor", "1");
        settings.put("transaction.state.log.replication.factor", "1");
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("share.coordinator.state.topic.replication.factor", "1");
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        // Segment size, index sizes and the flush policy stay at Kafka's defaults on both (Varve uses Kafka's).
        return settings;
    }

    /** Starts {@code kind} on an empty data directory (the previous one is deleted). */
    public RunningBroker startFresh(BrokerKind kind, String label) throws IOException {
        Path dataDir = dataDir(kind);
        deleteTree(dataDir);
        if (kind == BrokerKind.KAFKA) {
            copyTree(kafkaTemplate(), dataDir);
        } else {
            Files.createDirectories(dataDir);
        }
        return start(kind, label);
    }

    /** Starts {@code kind} again on the data directory its previous start left. */
    public RunningBroker restart(BrokerKind kind, String label) throws IOException {
        if (!Files.isDirectory(dataDir(kind))) {
            throw new IOException("no data directory to restart " + kind.displayName() + " on: " + dataDir(kind));
        }
        return start(kind, label);
    }

    /** Deletes the data directory unless --keep-data was given. */
    public void discardData(BrokerKind kind) throws IOException {
        if (!options.keepData) {
            deleteTree(dataDir(kind));
        }
    }

    public Path dataDir(BrokerKind kind) {
        return options.workDir.resolve("data").resolve(kind.dirName());
    }

    private RunningBroker start(BrokerKind kind, String label) throws IOException {
        int port = freePort();
        Path dataDir = dataDir(kind);
        Path logFile = options.workDir.resolve("logs").resolve(label + "-broker.log");
        Path config = options.workDir.resolve("conf").resolve(kind.dirName() + ".properties");
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(splitOptions(options.brokerJvmOpts));
        if (kind == BrokerKind.KAFKA) {
            writeProperties(config, kafkaSettings(port, freePort(), dataDir));
            command.add("-Dlog4j2.configurationFile=" + options.benchDir.resolve("config/kafka-log4j2.properties"));
            command.add("-Dkafka.logs.dir=" + logFile.getParent());
            command.addAll(List.of("-cp", options.kafkaLibs + "/*", "kafka.Kafka", config.toString()));
        } else {
            writeProperties(config, varveSettings(port, dataDir));
            command.addAll(splitOptions(options.varveLauncherOpts));
            command.addAll(List.of("-cp", options.varveClasspath, "io.varve.cli.Varve", "server", "--config",
                    config.toString()));
        }
        long startNanos = System.nanoTime();
        Process process = ChildProcesses.start(command, options.workDir, logFile);
        return new RunningBroker(kind, process, port, dataDir, logFile, startNanos);
    }

    private Map<String, String> kafkaSettings(int port, int controllerPort, Path dataDir) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("process.roles", "broker,controller");
        settings.put("controller.quorum.voters", "1@" + RunningBroker.HOST + ":" + controllerPort);
        settings.put("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port
                + ",CONTROLLER://" + RunningBroker.HOST + ":" + controllerPort);
        settings.put("advertised.listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port);
        settings.put("controller.listener.names", "CONTROLLER");
        settings.put("inter.broker.listener.name", "PLAINTEXT");
        settings.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        settings.put("log.dirs", dataDir.toString());
        settings.putAll(SHARED_SETTINGS);
        return settings;
    }

    private static Map<String, String> varveSettings(int port, Path dataDir) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port);
        settings.put("advertised.listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + port);
        settings.put("log.dirs", dataDir.toString());
        settings.putAll(SHARED_SETTINGS);
        return settings;
    }

    /** Formats a Kafka log directory once (StorageTool is a JVM start of its own); fresh starts copy it. */
    private Path kafkaTemplate() throws IOException {
        if (kafkaTemplate != null) {
            return kafkaTemplate;
        }
        Path template = options.workDir.resolve("kafka-formatted");
        deleteTree(template);
        Path config = options.workDir.resolve("conf/kafka-format.properties");
        writeProperties(config, kafkaSettings(freePort(), freePort(), template));
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add("-Dlog4j2.configurationFile=" + options.benchDir.resolve("config/tools-log4j2.properties"));
        command.addAll(List.of("-cp", options.kafkaLibs + "/*", "kafka.tools.StorageTool", "format",
                "--cluster-id", kafkaClusterId(), "--config", config.toString()));
        ChildProcesses.Outcome outcome = ChildProcesses.run(command, options.workDir,
                options.workDir.resolve("logs/kafka-storage-format.log"), FORMAT_TIMEOUT);
        if (!outcome.ok() || !Files.exists(template.resolve("meta.properties"))) {
            throw new IOException("Kafka's StorageTool could not format " + template + ":\n" + outcome.tail(20));
        }
        kafkaTemplate = template;
        return template;
    }

    /** A random cluster id in Kafka's form: 16 random bytes, URL-safe base64 without padding, not starting with '-'. */
    private static String kafkaClusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static List<String> splitOptions(String options) {
        List<String> parts = new ArrayList<>();
        for (String part : options.trim().split("\\s+")) {
            if (!part.isEmpty()) {
                parts.add(part);
            }
        }
        return parts;
    }

    /** A port the kernel just handed out on 127.0.0.1; the small race until the broker binds it is accepted. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(RunningBroker.HOST))) {
            return socket.getLocalPort();
        }
    }

    private static void writeProperties(Path file, Map<String, String> settings) throws IOException {
        StringBuilder text = new StringBuilder("# written by the Varve benchmark harness\n");
        settings.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(source -> {
                Path target = to.resolve(from.relativize(source).toString());
                try {
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
