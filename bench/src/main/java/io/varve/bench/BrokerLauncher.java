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
import java.util.TreeMap;
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
        return startFresh(kind, label, Map.of(), List.of());
    }

    /** As {@link #startFresh(BrokerKind, String)}, with {@code settings} over the shared ones (same keys on both). */
    public RunningBroker startFresh(BrokerKind kind, String label, Map<String, String> settings) throws IOException {
        return startFresh(kind, label, settings, List.of());
    }

    /**
     * A listener beside the PLAINTEXT one the harness and Admin use: its name (also its security protocol), port and
     * the broker settings it needs (keystore, SASL mechanisms), which both brokers get alike.
     */
    public record ExtraListener(String name, int port, Map<String, String> settings) {
        public String bootstrap() {
            return RunningBroker.HOST + ":" + port;
        }
    }

    /** As {@link #startFresh(BrokerKind, String)}, with {@code extras} listening too. */
    public RunningBroker startFresh(BrokerKind kind, String label, List<ExtraListener> extras) throws IOException {
        return startFresh(kind, label, Map.of(), extras);
    }

    private RunningBroker startFresh(
            BrokerKind kind, String label, Map<String, String> settings, List<ExtraListener> extras)
            throws IOException {
        Path dataDir = dataDir(kind);
        deleteTree(dataDir);
        if (kind == BrokerKind.KAFKA) {
            copyTree(kafkaTemplate(), dataDir);
        } else {
            Files.createDirectories(dataDir);
        }
        return start(kind, label, settings, extras);
    }

    /** Starts {@code kind} again on the data directory its previous start left. */
    public RunningBroker restart(BrokerKind kind, String label) throws IOException {
        if (!Files.isDirectory(dataDir(kind))) {
            throw new IOException("no data directory to restart " + kind.displayName() + " on: " + dataDir(kind));
        }
        return start(kind, label, List.of());
    }

    /** Deletes the data directory unless --keep-data was given. */
    public void discardData(BrokerKind kind) throws IOException {
        if (!options.keepData) {
            deleteTree(dataDir(kind));
        }
    }

    public Path dataDir(BrokerKind kind) {
        return options.dataDir().resolve(kind.dirName());
    }

    private RunningBroker start(BrokerKind kind, String label, List<ExtraListener> extras) throws IOException {
        return start(kind, label, Map.of(), extras);
    }

    private RunningBroker start(
            BrokerKind kind, String label, Map<String, String> extra, List<ExtraListener> extras) throws IOException {
        int port = freePort();
        int httpPort = -1;
        Path dataDir = dataDir(kind);
        Path logFile = options.workDir.resolve("logs").resolve(label + "-broker.log");
        Path config = options.workDir.resolve("conf").resolve(kind.dirName() + ".properties");
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(splitOptions(options.brokerJvmOpts));
        if (kind == BrokerKind.KAFKA) {
            writeProperties(config, withExtra(withListeners(kafkaSettings(port, freePort(), dataDir), extras), extra));
            command.add("-Dlog4j2.configurationFile=" + options.benchDir.resolve("config/kafka-log4j2.properties"));
            command.add("-Dkafka.logs.dir=" + logFile.getParent());
            command.addAll(List.of("-cp", options.kafkaLibs + "/*", "kafka.Kafka", config.toString()));
        } else {
            httpPort = freePort();
            Map<String, String> settings = withExtra(withListeners(varveSettings(port, dataDir), extras), extra);
            settings.put("varve.http.listeners", "http://" + RunningBroker.HOST + ":" + httpPort);
            writeProperties(config, settings);
            command.addAll(splitOptions(options.varveLauncherOpts));
            command.addAll(List.of("-cp", options.varveClasspath, "io.varve.cli.Varve", "server", "--config",
                    config.toString()));
        }
        long startNanos = System.nanoTime();
        Process process = ChildProcesses.start(command, options.workDir, logFile);
        return new RunningBroker(kind, process, port, dataDir, logFile, startNanos, httpPort);
    }

    private static Map<String, String> withExtra(Map<String, String> settings, Map<String, String> extra) {
        Map<String, String> all = new LinkedHashMap<>(settings);
        all.putAll(extra);
        return all;
    }

    /** Settings every node of a replicated cluster gets: replication factor 3 and {@code min.insync.replicas=2}. */
    static Map<String, String> clusterSettings(int size) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("num.partitions", "6");
        settings.put("default.replication.factor", Integer.toString(size));
        settings.put("min.insync.replicas", Integer.toString(Math.max(1, size - 1)));
        settings.put("offsets.topic.replication.factor", Integer.toString(size));
        settings.put("transaction.state.log.replication.factor", Integer.toString(size));
        settings.put("transaction.state.log.min.isr", Integer.toString(Math.max(1, size - 1)));
        settings.put("group.initial.rebalance.delay.ms", "0");
        return settings;
    }

    /**
     * Starts {@code size} combined (broker and controller) nodes of {@code kind} on empty data directories, all
     * voters of one static controller quorum, and waits until every node lists all of them. Kafka's nodes are
     * formatted with its StorageTool and one cluster id; Varve's get the {@code meta.properties} its format writes.
     */
    public RunningCluster startCluster(BrokerKind kind, String label, int size) throws IOException {
        Map<Integer, Integer> clientPorts = new TreeMap<>();
        Map<Integer, Integer> controllerPorts = new TreeMap<>();
        List<String> voters = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            clientPorts.put(id, freePort());
            controllerPorts.put(id, freePort());
            voters.add(id + "@" + RunningBroker.HOST + ":" + controllerPorts.get(id));
        }
        String clusterId = kafkaClusterId();
        Map<Integer, RunningBroker> nodes = new TreeMap<>();
        try {
            for (int id = 1; id <= size; id++) {
                Path dataDir = options.dataDir().resolve(kind.dirName() + "-node-" + id);
                deleteTree(dataDir);
                Files.createDirectories(dataDir);
                Map<String, String> settings = new LinkedHashMap<>();
                settings.put("node.id", Integer.toString(id));
                settings.put("process.roles", "broker,controller");
                settings.put("controller.quorum.voters", String.join(",", voters));
                settings.put("listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + clientPorts.get(id)
                        + ",CONTROLLER://" + RunningBroker.HOST + ":" + controllerPorts.get(id));
                settings.put("advertised.listeners", "PLAINTEXT://" + RunningBroker.HOST + ":" + clientPorts.get(id));
                settings.put("controller.listener.names", "CONTROLLER");
                settings.put("inter.broker.listener.name", "PLAINTEXT");
                settings.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
                settings.put("log.dirs", dataDir.toString());
                settings.putAll(clusterSettings(size));
                Path config = options.workDir.resolve("conf").resolve(kind.dirName() + "-node-" + id + ".properties");
                writeProperties(config, settings);
                if (kind == BrokerKind.KAFKA) {
                    formatKafka(config, clusterId, label + "-node-" + id);
                } else {
                    writeMetaProperties(dataDir, clusterId, id);
                }
                nodes.put(id, startNode(kind, config, clientPorts.get(id), dataDir, label + "-node-" + id));
            }
            RunningCluster cluster = new RunningCluster(kind, nodes);
            cluster.awaitReady(ScenarioContext.READY_TIMEOUT);
            return cluster;
        } catch (IOException | RuntimeException e) {
            nodes.values().forEach(RunningBroker::stop);
            throw e;
        }
    }

    /** Deletes a cluster's data directories unless --keep-data was given. */
    public void discardClusterData(BrokerKind kind, int size) throws IOException {
        if (!options.keepData) {
            for (int id = 1; id <= size; id++) {
                deleteTree(options.dataDir().resolve(kind.dirName() + "-node-" + id));
            }
        }
    }

    private RunningBroker startNode(BrokerKind kind, Path config, int port, Path dataDir, String label)
            throws IOException {
        Path logFile = options.workDir.resolve("logs").resolve(label + "-broker.log");
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.addAll(splitOptions(options.brokerJvmOpts));
        if (kind == BrokerKind.KAFKA) {
            command.add("-Dlog4j2.configurationFile=" + options.benchDir.resolve("config/kafka-log4j2.properties"));
            command.add("-Dkafka.logs.dir=" + logFile.getParent());
            command.addAll(List.of("-cp", options.kafkaLibs + "/*", "kafka.Kafka", config.toString()));
        } else {
            command.addAll(splitOptions(options.varveLauncherOpts));
            command.addAll(List.of("-cp", options.varveClasspath, "io.varve.cli.Varve", "server", "--config",
                    config.toString()));
        }
        long startNanos = System.nanoTime();
        Process process = ChildProcesses.start(command, options.workDir, logFile);
        return new RunningBroker(kind, process, port, dataDir, logFile, startNanos);
    }

    private void formatKafka(Path config, String clusterId, String label) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add("-Dlog4j2.configurationFile=" + options.benchDir.resolve("config/tools-log4j2.properties"));
        command.addAll(List.of("-cp", options.kafkaLibs + "/*", "kafka.tools.StorageTool", "format",
                "--cluster-id", clusterId, "--config", config.toString()));
        ChildProcesses.Outcome outcome = ChildProcesses.run(command, options.workDir,
                options.workDir.resolve("logs/" + label + "-storage-format.log"), FORMAT_TIMEOUT);
        if (!outcome.ok()) {
            throw new IOException("Kafka's StorageTool could not format " + config + ":\n" + outcome.tail(20));
        }
    }

    /** What {@code varve format --cluster-id} writes; every voter of a static quorum shares the cluster id. */
    private static void writeMetaProperties(Path dataDir, String clusterId, int nodeId) throws IOException {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("version", "1");
        meta.put("cluster.id", clusterId);
        meta.put("node.id", Integer.toString(nodeId));
        meta.put("directory.id", kafkaClusterId());
        writeProperties(dataDir.resolve("meta.properties"), meta);
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

    /** {@code settings} with each extra listener added to the listeners, the advertised ones and the protocol map. */
    private static Map<String, String> withListeners(Map<String, String> settings, List<ExtraListener> extras) {
        for (ExtraListener extra : extras) {
            String endpoint = "," + extra.name() + "://" + extra.bootstrap();
            settings.merge("listeners", endpoint, String::concat);
            settings.merge("advertised.listeners", endpoint, String::concat);
            settings.putIfAbsent("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT"); // Varve's has no CONTROLLER
            settings.merge("listener.security.protocol.map", "," + extra.name() + ":" + extra.name(), String::concat);
            settings.putAll(extra.settings());
        }
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
    public static int freePort() throws IOException {
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
