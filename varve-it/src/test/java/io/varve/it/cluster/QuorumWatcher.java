package io.varve.it.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Asks every controller of a cluster for its view of the quorum every {@value #POLL_MS} ms, each from a thread of its
 * own (a paused node stalls only its own poll), and keeps every answer: the history a test checks "at most one leader
 * per epoch" against. Bounded: it keeps at most {@value #MAX_VIEWS} answers and fails loudly beyond that.
 */
public final class QuorumWatcher implements AutoCloseable {
    private static final long POLL_MS = 100;
    private static final int MAX_VIEWS = 200_000;

    private final ClusterProcesses cluster;
    private final ExecutorService pollers;
    private final List<QuorumView> views = new ArrayList<>();
    private volatile boolean running = true;

    private QuorumWatcher(ClusterProcesses cluster) {
        this.cluster = cluster;
        List<ClusterNode> controllers = cluster.controllers();
        this.pollers = Executors.newFixedThreadPool(controllers.size(), r -> {
            Thread t = new Thread(r, "quorum-watcher");
            t.setDaemon(true);
            return t;
        });
        for (ClusterNode node : controllers) {
            pollers.execute(() -> poll(node));
        }
    }

    /** Starts watching every controller of {@code cluster}. */
    public static QuorumWatcher watch(ClusterProcesses cluster) {
        return new QuorumWatcher(cluster);
    }

    private void poll(ClusterNode node) {
        while (running) {
            if (node.isAlive() && !node.isPaused()) {
                NodeRequests.describeQuorum(node).ifPresent(this::record);
            }
            try {
                Thread.sleep(POLL_MS); // the polling period of a monitor, not a synchronisation
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private synchronized void record(QuorumView view) {
        if (views.size() >= MAX_VIEWS) {
            throw new IllegalStateException("more than " + MAX_VIEWS + " quorum views: is the test stuck?");
        }
        views.add(view);
    }

    /** Every answer so far, in arrival order. */
    public synchronized List<QuorumView> views() {
        return List.copyOf(views);
    }

    /** For each epoch seen, the leaders any node named for it. */
    public synchronized Map<Integer, Set<Integer>> leadersByEpoch() {
        Map<Integer, Set<Integer>> leaders = new TreeMap<>();
        for (QuorumView view : views) {
            if (view.knowsLeader()) {
                leaders.computeIfAbsent(view.leaderEpoch(), e -> new TreeSet<>())
                        .add(view.leaderId());
            }
        }
        return leaders;
    }

    /** The epochs for which two nodes (or one node at two times) named different leaders. */
    public Map<Integer, Set<Integer>> epochsWithSeveralLeaders() {
        Map<Integer, Set<Integer>> conflicts = new TreeMap<>();
        leadersByEpoch().forEach((epoch, leaders) -> {
            if (leaders.size() > 1) {
                conflicts.put(epoch, leaders);
            }
        });
        return conflicts;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        pollers.shutdownNow();
        if (!pollers.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the quorum watcher's pollers did not stop");
        }
    }
}
