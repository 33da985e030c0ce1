package io.varve.it.cluster;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * Creates topics {@code <prefix>0, <prefix>1, ...} one after the other on a thread of its own, as an operator's
 * script would through a failover (each a CreateTopics sent to the node {@code target} names, see
 * {@link ClusterProcesses#createTopicOnce}): each name is retried (on whichever node {@code target} names then) until its
 * creation is acknowledged or the cluster says it exists, so every name before the one in flight was created. It
 * records which names were acknowledged, which were found to exist on a retry (an earlier attempt whose answer was
 * lost had committed), and when each was settled.
 */
public final class TopicCreator implements AutoCloseable {
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(4);
    private static final long RETRY_BACKOFF_MS = 50;
    private static final int MAX_TOPICS = 10_000;

    /** One settled name: acknowledged, or found to exist when retried. */
    public record Settled(String name, boolean acknowledged, int attempts, long atNanos) {}

    private final ClusterProcesses cluster;
    private final String prefix;
    private final Supplier<Optional<ClusterNode>> target;
    private final List<Settled> settled = new ArrayList<>();
    private final Map<String, Integer> failures = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable crash;

    private TopicCreator(ClusterProcesses cluster, String prefix, Supplier<Optional<ClusterNode>> target) {
        this.cluster = cluster;
        this.prefix = prefix;
        this.target = target;
        this.thread = new Thread(this::run, "topic-creator-" + prefix);
        thread.setDaemon(true);
    }

    /** Sends every creation to the node the live controllers name as leader (combined nodes: no forwarding needed). */
    public static TopicCreator toLeader(ClusterProcesses cluster, String prefix) {
        TopicCreator creator = new TopicCreator(cluster, prefix, () -> currentLeader(cluster));
        creator.thread.start();
        return creator;
    }

    /** Sends every creation to a live broker, in turn (brokers forward it to the active controller). */
    public static TopicCreator toBrokers(ClusterProcesses cluster, String prefix) {
        int[] next = {0};
        TopicCreator creator = new TopicCreator(cluster, prefix, () -> {
            List<ClusterNode> live = cluster.brokers().stream()
                    .filter(n -> n.isAlive() && !n.isPaused())
                    .toList();
            return live.isEmpty() ? Optional.empty() : Optional.of(live.get(next[0]++ % live.size()));
        });
        creator.thread.start();
        return creator;
    }

    /** The live node that some live controller names as leader, if any. */
    static Optional<ClusterNode> currentLeader(ClusterProcesses cluster) {
        for (ClusterNode node : cluster.liveControllersExcept()) {
            Optional<QuorumView> view = NodeRequests.describeQuorum(node);
            if (view.isPresent() && view.get().knowsLeader()) {
                ClusterNode leader = cluster.node(view.get().leaderId());
                if (leader.isAlive() && !leader.isPaused()) {
                    return Optional.of(leader);
                }
            }
        }
        return Optional.empty();
    }

    private void run() {
        try {
            for (int n = 0; running && n < MAX_TOPICS; n++) {
                settle(prefix + n);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            crash = t;
        }
    }

    private void settle(String name) throws InterruptedException {
        int attempts = 0;
        while (running) {
            attempts++;
            Optional<ClusterNode> node = target.get();
            if (node.isEmpty()) {
                Thread.sleep(RETRY_BACKOFF_MS);
                continue;
            }
            try {
                Errors error = NodeRequests.createTopicOnce(node.get(), name, ATTEMPT_TIMEOUT);
                if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS) {
                    record(new Settled(name, error == Errors.NONE, attempts, System.nanoTime()));
                    return;
                }
                failed(name);
            } catch (IOException e) {
                failed(name); // no answer: the creation may or may not have committed, the retry tells
            }
            Thread.sleep(RETRY_BACKOFF_MS);
        }
    }

    private synchronized void record(Settled done) {
        settled.add(done);
    }

    private synchronized void failed(String name) {
        failures.merge(name, 1, Integer::sum);
    }

    /** Every name settled so far, in order. */
    public synchronized List<Settled> settled() {
        if (crash != null) {
            throw new IllegalStateException("the topic creator failed", crash);
        }
        return List.copyOf(settled);
    }

    /** How many attempts failed (timed out, NOT_CONTROLLER, no leader ...), by name. */
    public synchronized Map<String, Integer> failures() {
        return Map.copyOf(failures);
    }

    public String prefix() {
        return prefix;
    }

    /** Stops after the name in flight (which may or may not have been created) and waits for the thread. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(ATTEMPT_TIMEOUT.toMillis() * 3);
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(ATTEMPT_TIMEOUT.toMillis());
        }
    }
}
