package io.varve.it.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;

import io.varve.it.ServerProcess;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A cluster of real {@code varve server} processes, all voters or brokers of one metadata quorum:
 * combined nodes, or controllers and brokers ({@code process.roles}), each on its own data directory formatted with
 * one cluster id (as {@code kafka-storage format --cluster-id} does), on distinct loopback ports or each in its own
 * network namespace ({@link PrivateNetwork}) on the same ports. Nodes are numbered from 1 (controllers, or combined
 * nodes) and from 101 (brokers).
 *
 * <p>{@link #close} stops every process this cluster started (by PID), closes the admin clients and removes the
 * namespaces, so a test calls it from {@code @AfterEach} and a failed test leaves nothing running. Node output stays in
 * {@code <workDir>/logs} for a failed run to be read.
 */
public final class ClusterProcesses implements AutoCloseable {
    private static final int NAMESPACE_CLIENT_PORT = 9092;
    private static final int NAMESPACE_CONTROLLER_PORT = 9093;
    private static final int FIRST_BROKER_ID = 101;

    private final String clusterId;
    private final List<ClusterNode> nodes;
    private final PrivateNetwork network;
    private final List<Admin> admins = new ArrayList<>();
    private final Map<Integer, Integer> networkIndex;

    /** Per node, the ports of its {@link Builder#extraListener extra listeners}. */
    private final Map<Integer, Map<String, Integer>> extraPorts;

    private ClusterProcesses(
            String clusterId,
            List<ClusterNode> nodes,
            PrivateNetwork network,
            Map<Integer, Integer> networkIndex,
            Map<Integer, Map<String, Integer>> extraPorts) {
        this.clusterId = clusterId;
        this.nodes = List.copyOf(nodes);
        this.network = network;
        this.networkIndex = Map.copyOf(networkIndex);
        this.extraPorts = Map.copyOf(extraPorts);
    }

    /** {@code host:port} of {@code node}'s extra listener {@code name} (see {@link Builder#extraListener}). */
    public String bootstrap(ClusterNode node, String listenerName) {
        Integer port = extraPorts.getOrDefault(node.id(), Map.of()).get(listenerName);
        if (port == null) {
            throw new IllegalArgumentException(node + " has no extra listener " + listenerName);
        }
        return node.host() + ":" + port;
    }

    /** {@code count} combined nodes ({@code process.roles=broker,controller}), all of them voters. */
    public static Builder combined(int count) {
        return new Builder(count, 0, true);
    }

    /** {@code controllers} controllers (the voters) and {@code brokers} brokers, each a process of its own. */
    public static Builder split(int controllers, int brokers) {
        return new Builder(controllers, brokers, false);
    }

    /** How a cluster is laid out before it starts. */
    public static final class Builder {
        private final int controllers;
        private final int brokers;
        private final boolean combined;
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private final Map<Integer, Map<String, String>> nodeOverrides = new HashMap<>();
        private final List<String> extraListeners = new ArrayList<>();
        private String interBrokerListener;
        private String controllerProtocol = "PLAINTEXT";
        private boolean namespaces;
        private final List<String> scramUsers = new ArrayList<>();

        private Builder(int controllers, int brokers, boolean combined) {
            if (controllers < 1) {
                throw new IllegalArgumentException("a cluster needs at least one controller");
            }
            this.controllers = controllers;
            this.brokers = brokers;
            this.combined = combined;
        }

        /** A setting for every node, after the harness's own (so it wins over them). */
        public Builder override(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** A setting for node {@code nodeId} alone (e.g. a port of its own), after every other setting. */
        public Builder overrideFor(int nodeId, String key, String value) {
            nodeOverrides.computeIfAbsent(nodeId, id -> new LinkedHashMap<>()).put(key, value);
            return this;
        }

        /**
         * One more listener on every broker, named after its security protocol (e.g. {@code SASL_SSL}, which Kafka's
         * default protocol map knows), on a port of its own; the harness's clients keep using PLAINTEXT.
         */
        public Builder extraListener(String name) {
            extraListeners.add(name);
            return this;
        }

        /**
         * Brokers reach each other on {@code interBrokerListener} (one of {@link #extraListener}'s, or PLAINTEXT) and
         * the controller listener speaks {@code controllerProtocol}; the TLS keys themselves are given with {@link
         * #override}. {@link #awaitLeader} speaks PLAINTEXT to the controller listener, so a test with an SSL one
         * waits on its brokers instead.
         */
        public Builder secureInternalListeners(String interBrokerListener, String controllerProtocol) {
            this.interBrokerListener = interBrokerListener;
            this.controllerProtocol = controllerProtocol;
            return this;
        }

        /**
         * SCRAM users given at format time, as {@code varve format --add-scram} (and Kafka's {@code kafka-storage
         * format --add-scram}) takes them, e.g. {@code SCRAM-SHA-512=[name=broker,password=broker-secret]}: written
         * into every controller's metadata directory, so the cluster's first active controller puts them in the
         * metadata log before anyone could create them at run time.
         */
        public Builder addScram(String... arguments) {
            scramUsers.addAll(List.of(arguments));
            return this;
        }

        /** Each node in its own network namespace (needs root: see {@link PrivateNetwork#unavailableReason}). */
        public Builder inNetworkNamespaces() {
            namespaces = true;
            return this;
        }

        /** Formats every node's directory under {@code workDir}, then starts every process (without waiting). */
        public ClusterProcesses start(Path workDir) throws IOException {
            List<ClusterNode.Role> roles = new ArrayList<>();
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < controllers; i++) {
                roles.add(combined ? ClusterNode.Role.COMBINED : ClusterNode.Role.CONTROLLER);
                ids.add(i + 1);
            }
            for (int i = 0; i < brokers; i++) {
                roles.add(ClusterNode.Role.BROKER);
                ids.add(FIRST_BROKER_ID + i);
            }
            PrivateNetwork network = namespaces ? PrivateNetwork.create(roles.size()) : null;
            ClusterProcesses cluster = null;
            try {
                cluster = layOut(workDir, roles, ids, network);
                for (ClusterNode node : cluster.nodes) {
                    node.start();
                }
                return cluster;
            } catch (IOException | RuntimeException e) {
                if (cluster != null) {
                    cluster.close();
                } else if (network != null) {
                    network.close();
                }
                throw e;
            }
        }

        private ClusterProcesses layOut(
                Path workDir, List<ClusterNode.Role> roles, List<Integer> ids, PrivateNetwork network)
                throws IOException {
            String clusterId = Uuid.randomUuid().toString();
            List<String> hosts = new ArrayList<>();
            List<Integer> clientPorts = new ArrayList<>();
            List<Integer> controllerPorts = new ArrayList<>();
            List<String> voters = new ArrayList<>();
            Map<Integer, Integer> networkIndex = new HashMap<>();
            Map<Integer, Map<String, Integer>> extraPorts = new HashMap<>();
            for (int i = 0; i < roles.size(); i++) {
                ClusterNode.Role role = roles.get(i);
                hosts.add(network == null ? "127.0.0.1" : network.address(i));
                clientPorts.add(role.isBroker() ? port(network, NAMESPACE_CLIENT_PORT) : -1);
                controllerPorts.add(role.isController() ? port(network, NAMESPACE_CONTROLLER_PORT) : -1);
                if (role.isController()) {
                    voters.add(ids.get(i) + "@" + hosts.get(i) + ":" + controllerPorts.get(i));
                }
                networkIndex.put(ids.get(i), i);
            }
            List<ClusterNode> nodes = new ArrayList<>();
            for (int i = 0; i < roles.size(); i++) {
                int id = ids.get(i);
                ClusterNode.Role role = roles.get(i);
                Path dataDir = workDir.resolve("node-" + id);
                format(dataDir, clusterId, id);
                if (role.isController() && !scramUsers.isEmpty()) {
                    io.varve.broker.security.BootstrapScramCredentials.write(
                            dataDir,
                            io.varve.broker.security.BootstrapScramCredentials.derive(
                                    scramUsers, new java.security.SecureRandom()));
                }
                List<String> listeners = new ArrayList<>();
                if (role.isBroker()) {
                    listeners.add("PLAINTEXT://" + hosts.get(i) + ":" + clientPorts.get(i));
                    for (String extra : extraListeners) {
                        int port = ServerProcess.freePort();
                        extraPorts.computeIfAbsent(id, n -> new HashMap<>()).put(extra, port);
                        listeners.add(extra + "://" + hosts.get(i) + ":" + port);
                    }
                }
                if (role.isController()) {
                    listeners.add("CONTROLLER://" + hosts.get(i) + ":" + controllerPorts.get(i));
                }
                Map<String, String> settings = new LinkedHashMap<>();
                settings.put("node.id", Integer.toString(id));
                settings.put("process.roles", role.processRoles);
                settings.put("listeners", String.join(",", listeners));
                settings.put("controller.listener.names", "CONTROLLER");
                settings.put("controller.quorum.voters", String.join(",", voters));
                settings.put("log.dirs", dataDir.toString());
                if (interBrokerListener != null) {
                    settings.put("inter.broker.listener.name", interBrokerListener);
                    List<String> map =
                            new ArrayList<>(List.of("PLAINTEXT:PLAINTEXT", "CONTROLLER:" + controllerProtocol));
                    extraListeners.forEach(l -> map.add(l + ":" + l));
                    settings.put("listener.security.protocol.map", String.join(",", map));
                }
                settings.putAll(overrides);
                settings.putAll(nodeOverrides.getOrDefault(id, Map.of()));
                List<String> arguments = new ArrayList<>();
                settings.forEach((k, v) -> {
                    arguments.add("--override");
                    arguments.add(k + "=" + v);
                });
                nodes.add(new ClusterNode(
                        id,
                        role,
                        hosts.get(i),
                        clientPorts.get(i),
                        controllerPorts.get(i),
                        dataDir,
                        workDir.resolve("logs"),
                        network == null ? List.of() : network.launcher(i),
                        arguments));
            }
            return new ClusterProcesses(clusterId, nodes, network, networkIndex, extraPorts);
        }

        private static int port(PrivateNetwork network, int namespacePort) throws IOException {
            return network == null ? ServerProcess.freePort() : namespacePort;
        }
    }

    /** What {@code kafka-storage format --cluster-id} writes: the nodes of one cluster share its id. */
    private static void format(Path dataDir, String clusterId, int nodeId) throws IOException {
        Files.createDirectories(dataDir);
        Properties p = new Properties();
        p.setProperty("version", "1");
        p.setProperty("cluster.id", clusterId);
        p.setProperty("node.id", Integer.toString(nodeId));
        p.setProperty("directory.id", Uuid.randomUuid().toString());
        try (Writer w = Files.newBufferedWriter(dataDir.resolve("meta.properties"), UTF_8)) {
            p.store(w, "formatted by ClusterProcesses");
        }
    }

    /**
     * A fresh directory for one test's cluster under {@code target/cluster-it}: kept after the run (unlike a
     * {@code @TempDir}), so that the nodes' logs of a failed run can be read; {@code mvn clean} removes it.
     */
    public static Path workDir(String testName) throws IOException {
        Path dir = Path.of("target", "cluster-it", testName + "-" + System.currentTimeMillis())
                .toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    public String clusterId() {
        return clusterId;
    }

    public List<ClusterNode> nodes() {
        return nodes;
    }

    public ClusterNode node(int id) {
        return nodes.stream()
                .filter(n -> n.id() == id)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node " + id));
    }

    /** The voters: combined nodes or controllers. */
    public List<ClusterNode> controllers() {
        return nodes.stream().filter(n -> n.role().isController()).toList();
    }

    /** The nodes that host partitions: combined nodes or brokers. */
    public List<ClusterNode> brokers() {
        return nodes.stream().filter(n -> n.role().isBroker()).toList();
    }

    /** Controllers running and not paused, except {@code except}. */
    public List<ClusterNode> liveControllersExcept(ClusterNode... except) {
        List<ClusterNode> live = new ArrayList<>();
        for (ClusterNode node : controllers()) {
            if (node.isAlive() && !node.isPaused() && !List.of(except).contains(node)) {
                live.add(node);
            }
        }
        return live;
    }

    /**
     * Waits until every node of {@code among} answers DescribeQuorum with the same leader, one of {@code among}, in
     * the same epoch of at least {@code minEpoch}; returns the leader's answer.
     */
    public QuorumView awaitLeader(Collection<ClusterNode> among, int minEpoch, Duration bound) {
        AtomicReference<QuorumView> agreed = new AtomicReference<>();
        List<Integer> ids = among.stream().map(ClusterNode::id).toList();
        await("one leader of epoch >= " + minEpoch + " that nodes " + ids + " agree on")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(50))
                .pollInSameThread()
                .until(() -> {
                    List<QuorumView> views = new ArrayList<>();
                    for (ClusterNode node : among) {
                        Optional<QuorumView> view = NodeRequests.describeQuorum(node);
                        if (view.isEmpty()) {
                            return false;
                        }
                        views.add(view.get());
                    }
                    QuorumView first = views.get(0);
                    boolean agree = first.knowsLeader()
                            && first.leaderEpoch() >= minEpoch
                            && ids.contains(first.leaderId())
                            && views.stream()
                                    .allMatch(v ->
                                            v.leaderId() == first.leaderId() && v.leaderEpoch() == first.leaderEpoch());
                    if (agree) {
                        agreed.set(views.stream()
                                .filter(v -> v.nodeId() == first.leaderId())
                                .findFirst()
                                .orElseThrow());
                    }
                    return agree;
                });
        return agreed.get();
    }

    /** {@link #awaitLeader(Collection, int, Duration)} among every live controller. */
    public QuorumView awaitLeader(Duration bound) {
        return awaitLeader(liveControllersExcept(), 0, bound);
    }

    /** Waits until the first broker's Metadata answer lists {@code count} brokers: registered and unfenced. */
    public void awaitBrokers(int count, Duration bound) {
        ClusterNode first = brokers().get(0);
        await(count + " brokers registered and unfenced")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> NodeRequests.brokerIds(first)
                        .map(ids -> ids.size() == count)
                        .orElse(false));
    }

    /** An admin client bootstrapped on {@code node} alone, closed with the cluster; {@code settings} win. */
    public Admin admin(ClusterNode node, Map<String, Object> settings) {
        Map<String, Object> config = new HashMap<>();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, node.bootstrap());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000);
        config.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        config.putAll(settings);
        Admin admin = Admin.create(config);
        synchronized (admins) {
            admins.add(admin);
        }
        return admin;
    }

    public Admin admin(ClusterNode node) {
        return admin(node, Map.of());
    }

    /**
     * Creates a one-partition topic through {@code node}, retrying within {@code bound} while it cannot yet (no
     * broker registered and unfenced, a leader change); a retry told the topic exists counts as created.
     */
    public void createTopic(ClusterNode node, String name, Duration bound) {
        AtomicReference<Object> lastOutcome = new AtomicReference<>();
        try {
            await("topic " + name + " created through " + node)
                    .atMost(bound)
                    .pollInterval(Duration.ofMillis(100))
                    .pollInSameThread()
                    .until(() -> {
                        try {
                            Errors error = NodeRequests.createTopicOnce(node, name, Duration.ofSeconds(5));
                            lastOutcome.set(error);
                            return error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS;
                        } catch (IOException e) {
                            lastOutcome.set(e);
                            return false;
                        }
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; the last attempt ended with " + lastOutcome.get(), e);
        }
    }

    /** Cuts {@code node} off from every other node (needs {@link Builder#inNetworkNamespaces}). */
    public void isolate(ClusterNode node) throws IOException {
        requireNetwork().isolate(networkIndex.get(node.id()));
    }

    /** Cuts {@code node} off from every other node and from this test's clients (needs {@link Builder#inNetworkNamespaces}). */
    public void isolateCompletely(ClusterNode node) throws IOException {
        requireNetwork().isolateCompletely(networkIndex.get(node.id()));
    }

    /** Undoes every {@link #isolate} and {@link #isolateCompletely}. */
    public void heal() throws IOException {
        requireNetwork().heal();
    }

    private PrivateNetwork requireNetwork() {
        if (network == null) {
            throw new IllegalStateException("this cluster runs on loopback: build it with inNetworkNamespaces()");
        }
        return network;
    }

    /** The tail of every node's output, for a failure message. */
    public String logTails(int lines) {
        StringBuilder text = new StringBuilder();
        for (ClusterNode node : nodes) {
            text.append(node.logTail(lines)).append("\n\n");
        }
        return text.toString();
    }

    @Override
    public void close() {
        synchronized (admins) {
            for (Admin admin : admins) {
                admin.close(Duration.ofSeconds(2));
            }
            admins.clear();
        }
        for (ClusterNode node : nodes) {
            try {
                node.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (network != null) {
            network.close();
        }
    }
}
