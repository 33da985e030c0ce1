package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Three combined Varve nodes on loopback (distinct ports, one data directory each, formatted with one cluster id),
 * each a process the bench starts, SIGKILLs or SIGTERMs by its PID through {@link ChildProcesses}.
 */
final class FailoverCluster implements AutoCloseable {
    static final String HOST = RunningBroker.HOST;
    static final Duration QUERY_TIMEOUT = Duration.ofMillis(500);

    private final Path workDir;
    private final List<String> javaCommand;
    private final Map<Integer, Integer> clientPorts = new TreeMap<>();
    private final Map<Integer, Integer> controllerPorts = new TreeMap<>();
    private final Map<Integer, List<String>> arguments = new TreeMap<>();
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final Map<Integer, Integer> starts = new TreeMap<>();

    /** Lays out and formats {@code size} nodes; {@code overrides} go to every node after the bench's own settings. */
    FailoverCluster(Path workDir, String varveClasspath, List<String> jvmOptions, int size,
                    Map<String, String> overrides) throws IOException {
        this.workDir = workDir;
        List<String> java = new ArrayList<>(List.of(BrokerLauncher.javaBinary()));
        java.addAll(jvmOptions);
        java.addAll(List.of("-cp", varveClasspath, "io.varve.cli.Varve", "server"));
        this.javaCommand = List.copyOf(java);
        String clusterId = UUID.randomUUID().toString();
        List<String> voters = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            clientPorts.put(id, BrokerLauncher.freePort());
            controllerPorts.put(id, BrokerLauncher.freePort());
            voters.add(id + "@" + HOST + ":" + controllerPorts.get(id));
        }
        for (int id = 1; id <= size; id++) {
            Path dataDir = workDir.resolve("data").resolve("node-" + id);
            format(dataDir, clusterId, id);
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put("node.id", Integer.toString(id));
            settings.put("listeners", "PLAINTEXT://" + HOST + ":" + clientPorts.get(id) + ",CONTROLLER://" + HOST + ":"
                    + controllerPorts.get(id));
            settings.put("controller.quorum.voters", String.join(",", voters));
            settings.put("log.dirs", dataDir.toString());
            settings.putAll(overrides);
            List<String> args = new ArrayList<>();
            settings.forEach((k, v) -> {
                args.add("--override");
                args.add(k + "=" + v);
            });
            arguments.put(id, args);
        }
    }

    /** What {@code kafka-storage format --cluster-id} writes: the voters must share a cluster id. */
    private static void format(Path dataDir, String clusterId, int nodeId) throws IOException {
        Files.createDirectories(dataDir);
        Properties p = new Properties();
        p.setProperty("version", "1");
        p.setProperty("cluster.id", clusterId);
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("directory.id", UUID.randomUUID().toString());
        try (var writer = Files.newBufferedWriter(dataDir.resolve("meta.properties"))) {
            p.store(writer, "formatted by bench/failover");
        }
    }

    Set<Integer> ids() {
        return clientPorts.keySet();
    }

    void start(int id) throws IOException {
        int n = starts.merge(id, 1, Integer::sum);
        List<String> command = new ArrayList<>(javaCommand);
        command.addAll(arguments.get(id));
        Path log = workDir.resolve("logs").resolve("node-" + id + "-start" + n + ".log");
        processes.put(id, ChildProcesses.start(command, workDir, log));
    }

    boolean isAlive(int id) {
        Process process = processes.get(id);
        return process != null && process.isAlive();
    }

    /** SIGKILL by PID: no shutdown hook runs, no EndQuorumEpoch is sent. */
    void kill(int id) {
        processes.get(id).destroyForcibly();
    }

    /** SIGTERM by PID: a clean stop, in which a leading controller resigns with EndQuorumEpoch. */
    void terminate(int id) {
        processes.get(id).destroy();
    }

    /** Waits for a signalled node to exit (SIGKILL after {@code grace}) and forgets it. */
    void reap(int id, Duration grace) throws InterruptedException {
        Process process = processes.get(id);
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            System.err.println("bench/failover: node " + id + " (pid " + process.pid() + ") still runs after "
                    + grace.toSeconds() + " s");
        }
        ChildProcesses.stop(process, Duration.ofSeconds(5));
    }

    /**
     * Node {@code id}'s own view of the quorum (asked on its controller listener: the client listener forwards
     * DescribeQuorum to the active controller), or empty when it does not answer within {@link #QUERY_TIMEOUT}.
     */
    Optional<QuorumWire.QuorumView> view(int id) {
        try {
            return Optional.of(QuorumWire.describeQuorum(HOST, controllerPorts.get(id), QUERY_TIMEOUT));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    int clientPort(int id) {
        return clientPorts.get(id);
    }

    /**
     * Waits until every node of {@code among} names the same leader, one of them, in the same epoch of at least
     * {@code minEpoch}.
     */
    QuorumWire.QuorumView awaitAgreedLeader(Set<Integer> among, int minEpoch, Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            QuorumWire.QuorumView first = null;
            boolean agreed = true;
            for (int id : among) {
                Optional<QuorumWire.QuorumView> view = view(id);
                if (view.isEmpty() || (first != null && !view.get().equals(first))) {
                    agreed = false;
                    break;
                }
                first = view.get();
            }
            if (agreed && first != null && among.contains(first.leaderId()) && first.leaderEpoch() >= minEpoch) {
                return first;
            }
            Thread.sleep(20); // polling period
        }
        throw new IllegalStateException("nodes " + among + " did not agree on a leader of epoch >= " + minEpoch
                + " within " + bound.toSeconds() + " s; logs in " + workDir.resolve("logs"));
    }

    @Override
    public void close() {
        for (Process process : processes.values()) {
            ChildProcesses.stop(process, Duration.ofSeconds(30));
        }
    }
}
