package io.varve.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Several broker processes of one kind the harness started as one cluster (combined broker and controller
 * nodes, one data directory each): the nodes by id, their summed CPU time and their peak resident sets.
 */
public final class RunningCluster implements AutoCloseable {

    private final BrokerKind kind;
    private final Map<Integer, RunningBroker> nodes;

    RunningCluster(BrokerKind kind, Map<Integer, RunningBroker> nodes) {
        this.kind = kind;
        this.nodes = new TreeMap<>(nodes);
    }

    public BrokerKind kind() {
        return kind;
    }

    public RunningBroker node(int id) {
        RunningBroker node = nodes.get(id);
        if (node == null) {
            throw new IllegalArgumentException("no node " + id + " in " + nodes.keySet());
        }
        return node;
    }

    public List<Integer> ids() {
        return List.copyOf(nodes.keySet());
    }

    /** Every node's client listener, comma-separated, as clients take {@code bootstrap.servers}. */
    public String bootstrap() {
        List<String> addresses = new ArrayList<>();
        nodes.values().forEach(node -> addresses.add(node.bootstrap()));
        return String.join(",", addresses);
    }

    /** Waits until every node answers Metadata listing all {@code nodes.size()} brokers. */
    public void awaitReady(Duration timeout) throws IOException {
        for (RunningBroker node : nodes.values()) {
            node.awaitMetadata(timeout, summary -> summary.brokers() >= nodes.size(),
                    "list all " + nodes.size() + " brokers in Metadata");
        }
    }

    /** User plus system CPU seconds used so far, summed over the live nodes. */
    public double cpuSeconds() throws IOException {
        double sum = 0;
        for (RunningBroker node : nodes.values()) {
            if (node.isAlive()) {
                sum += node.cpuSeconds();
            }
        }
        return sum;
    }

    /** The largest peak resident set (VmHWM) of any live node, in bytes. */
    public long maxPeakRssBytes() throws IOException {
        long max = 0;
        for (RunningBroker node : nodes.values()) {
            if (node.isAlive()) {
                max = Math.max(max, node.peakRssBytes());
            }
        }
        return max;
    }

    /** SIGKILL of one node by its PID: no shutdown hook runs, nothing is handed over. */
    public void kill(int id) {
        node(id).killNow();
    }

    /** Stops every node by its PID (SIGTERM, SIGKILL after a grace period). */
    public void stop() {
        nodes.values().forEach(RunningBroker::stop);
    }

    @Override
    public void close() {
        stop();
    }
}
