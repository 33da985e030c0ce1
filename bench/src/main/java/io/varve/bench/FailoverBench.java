package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.protocol.Errors;

/**
 * Controller failover of three combined Varve nodes (Varve only): per round, the active controller is stopped —
 * SIGKILL (no goodbye: the followers notice after {@code controller.quorum.fetch.timeout.ms}), then SIGTERM (a clean
 * stop: it resigns with EndQuorumEpoch naming successors, the first of which runs for election at once) — and
 * CreateTopics are sent, one after the other, to whichever node leads; the figure is the longest window without an
 * acknowledged write, from the signal until a successor's first. Also reported: when a survivor first names the
 * successor, and when the successor acknowledged its first write. The stopped node is restarted and the quorum whole again before the next stop.
 *
 * <p>Run by {@code bench/failover}; prints a Markdown section for {@code bench/RESULTS.md}.
 */
public final class FailoverBench {
    private static final int NODES = 3;
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(1000);
    private static final Duration ROUND_BOUND = Duration.ofSeconds(60);
    private static final Duration START_BOUND = Duration.ofSeconds(90);
    private static final long KILL_TARGET_MS = 1500;
    private static final long CLEAN_STOP_TARGET_MS = 200;

    private enum Stop {
        SIGKILL, SIGTERM
    }

    /**
     * One stop: from the signal, when a survivor first named a successor, the longest window without an acknowledged
     * write ({@code writeMs}, the figure), when the successor acknowledged its first, and what the failed writes got.
     */
    private record Sample(long leaderKnownMs, long writeMs, long successorWriteMs, int oldEpoch, int newEpoch,
                          Map<String, Integer> failures) {
    }

    private FailoverBench() {
    }

    public static void main(String[] args) throws Exception {
        Path workDir = Path.of(arg(args, "--work", "bench/work/failover")).toAbsolutePath();
        String classpath = arg(args, "--varve-classpath", null);
        int rounds = Integer.parseInt(arg(args, "--rounds", "5"));
        List<String> jvmOptions = BrokerLauncher.splitOptions(arg(args, "--jvm-opts",
                "-Xms512m -Xmx512m -XX:+UseG1GC"));
        Map<String, String> overrides = overrides(args);
        if (classpath == null) {
            throw new IllegalArgumentException("--varve-classpath is required");
        }
        BrokerLauncher.deleteTree(workDir);
        Files.createDirectories(workDir);
        String loadBefore = MachineInfo.loadAverage();
        Map<Stop, List<Sample>> samples = new LinkedHashMap<>();
        try (FailoverCluster cluster = new FailoverCluster(workDir, classpath, jvmOptions, NODES, overrides)) {
            for (int id : cluster.ids()) {
                cluster.start(id);
            }
            QuorumWire.QuorumView view = cluster.awaitAgreedLeader(cluster.ids(), 0, START_BOUND);
            write(cluster, view, "warm-up", START_BOUND); // the first write also waits for the leader's broker
            for (int round = 1; round <= rounds; round++) {
                for (Stop stop : Stop.values()) {
                    Sample sample = measure(cluster, stop, "r" + round + "-" + stop.name().toLowerCase(Locale.ROOT));
                    samples.computeIfAbsent(stop, s -> new ArrayList<>()).add(sample);
                    System.err.printf(Locale.ROOT, "bench/failover: round %d %s: successor named after %d ms, longest "
                            + "window without a write %d ms, successor's first write after %d ms (epoch %d -> %d)%n",
                            round, stop, sample.leaderKnownMs(), sample.writeMs(), sample.successorWriteMs(),
                            sample.oldEpoch(), sample.newEpoch());
                }
            }
        }
        String report = report(rounds, jvmOptions, overrides, samples, loadBefore, MachineInfo.loadAverage());
        System.out.println(report);
        Files.writeString(workDir.resolve("failover.md"), report);
    }

    /**
     * Stops the leader the way {@code stop} says and writes, from the signal on, to whichever node leads (the stopping
     * leader too, while it still does: a clean stop first moves the broker's partition leadership away, which takes a
     * few heartbeats, and its controller serves meanwhile). The figure is the longest window without an acknowledged
     * write, from the signal until the first write a successor acknowledged. Then restarts the stopped node and waits
     * for a whole quorum.
     */
    private static Sample measure(FailoverCluster cluster, Stop stop, String label) throws Exception {
        QuorumWire.QuorumView before = cluster.awaitAgreedLeader(cluster.ids(), 0, ROUND_BOUND);
        write(cluster, before, "before-" + label, ROUND_BOUND); // the leader takes writes right now
        int stopped = before.leaderId();
        Map<String, Integer> failures = new TreeMap<>();

        long signalNanos = System.nanoTime();
        if (stop == Stop.SIGKILL) {
            cluster.kill(stopped);
        } else {
            cluster.terminate(stopped);
        }
        long leaderKnownNanos = -1;
        long lastAckNanos = signalNanos;
        long longestGapNanos = 0;
        long deadline = signalNanos + ROUND_BOUND.toNanos();
        int newEpoch;
        for (int n = 0; ; ) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no successor acknowledged a write within " + ROUND_BOUND.toSeconds()
                        + " s of the " + stop + " of node " + stopped + "; failures " + failures);
            }
            QuorumWire.QuorumView leader = currentLeader(cluster);
            if (leader == null) {
                continue;
            }
            boolean successor = leader.leaderEpoch() > before.leaderEpoch() && leader.leaderId() != stopped;
            if (successor && leaderKnownNanos < 0) {
                leaderKnownNanos = System.nanoTime();
            }
            String outcome;
            try {
                Errors error = QuorumWire.createTopic(FailoverCluster.HOST, cluster.clientPort(leader.leaderId()),
                        "after-" + label + "-" + n, PROBE_TIMEOUT);
                if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS) {
                    long ackNanos = System.nanoTime();
                    longestGapNanos = Math.max(longestGapNanos, ackNanos - lastAckNanos);
                    lastAckNanos = ackNanos;
                    n++;
                    if (successor) {
                        newEpoch = leader.leaderEpoch();
                        break;
                    }
                    continue;
                }
                outcome = error.name();
            } catch (IOException e) {
                outcome = e.getClass().getSimpleName();
            }
            failures.merge(outcome, 1, Integer::sum);
        }

        cluster.reap(stopped, Duration.ofSeconds(30));
        cluster.start(stopped);
        cluster.awaitAgreedLeader(cluster.ids(), newEpoch, ROUND_BOUND);
        return new Sample((leaderKnownNanos - signalNanos) / 1_000_000, longestGapNanos / 1_000_000,
                (lastAckNanos - signalNanos) / 1_000_000, before.leaderEpoch(), newEpoch, failures);
    }

    /** The leader of the highest epoch some live node names, if that leader is alive; else null. */
    private static QuorumWire.QuorumView currentLeader(FailoverCluster cluster) {
        QuorumWire.QuorumView best = null;
        for (int id : cluster.ids()) {
            if (!cluster.isAlive(id)) {
                continue;
            }
            var view = cluster.view(id);
            if (view.isPresent() && view.get().leaderId() >= 0 && cluster.isAlive(view.get().leaderId())
                    && (best == null || view.get().leaderEpoch() > best.leaderEpoch())) {
                best = view.get();
            }
        }
        return best;
    }

    /** A CreateTopics on the leader {@code view} names, repeated until acknowledged (or found to exist). */
    private static void write(FailoverCluster cluster, QuorumWire.QuorumView view, String topic, Duration bound)
            throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            try {
                Errors error = QuorumWire.createTopic(FailoverCluster.HOST, cluster.clientPort(view.leaderId()), topic,
                        PROBE_TIMEOUT);
                if (error == Errors.NONE || error == Errors.TOPIC_ALREADY_EXISTS) {
                    return;
                }
                last = error.name();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(10); // retry pacing: short, so the figure is the cluster's, not the prober's
        }
        throw new IllegalStateException("node " + view.leaderId() + " acknowledged no CreateTopics of " + topic
                + " within " + bound.toSeconds() + " s; last answer " + last);
    }

    private static String report(int rounds, List<String> jvmOptions, Map<String, String> overrides,
                                 Map<Stop, List<Sample>> samples, String loadBefore, String loadAfter) {
        StringBuilder md = new StringBuilder();
        md.append("### Controller failover, ")
                .append(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" (`bench/failover --rounds ").append(rounds).append("`)\n\n");
        md.append("Three combined nodes on loopback; node JVMs `")
                .append(String.join(" ", jvmOptions)).append("`; ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores; load average ")
                .append(loadBefore).append(" before, ").append(loadAfter).append(" after.\n");
        io.varve.broker.config.BrokerConfig defaults = io.varve.broker.config.BrokerConfig.fromMap(Map.of());
        io.varve.raft.node.QuorumTimeouts timeouts = defaults.quorumTimeouts();
        md.append("Settings: Varve's defaults (`controller.quorum.election.timeout.ms` ")
                .append(timeouts.electionTimeoutMs())
                .append(", `controller.quorum.election.backoff.max.ms` ")
                .append(timeouts.electionBackoffMaxMs())
                .append(", `controller.quorum.fetch.timeout.ms` ")
                .append(timeouts.fetchTimeoutMs())
                .append(", `broker.session.timeout.ms` ")
                .append(defaults.brokerSessionTimeoutMs())
                .append(")");
        if (!overrides.isEmpty()) {
            md.append(", with the overrides `").append(overrides).append('`');
        }
        md.append(".\n\n");
        md.append("| stop of the active controller | rounds | successor named, median / max (ms) "
                + "| successor's first write, median / max (ms) "
                + "| longest window without a write, median / max (ms) | target | each round (ms) |\n");
        md.append("|---|---|---|---|---|---|---|\n");
        for (Map.Entry<Stop, List<Sample>> entry : samples.entrySet()) {
            List<Sample> list = entry.getValue();
            long[] leader = list.stream().mapToLong(Sample::leaderKnownMs).toArray();
            long[] write = list.stream().mapToLong(Sample::writeMs).toArray();
            long[] successorWrite = list.stream().mapToLong(Sample::successorWriteMs).toArray();
            long target = entry.getKey() == Stop.SIGKILL ? KILL_TARGET_MS : CLEAN_STOP_TARGET_MS;
            long writeMedian = median(write);
            md.append("| ").append(entry.getKey() == Stop.SIGKILL ? "SIGKILL" : "SIGTERM (EndQuorumEpoch)")
                    .append(" | ").append(list.size())
                    .append(" | ").append(median(leader)).append(" / ").append(max(leader))
                    .append(" | ").append(median(successorWrite)).append(" / ").append(max(successorWrite))
                    .append(" | ").append(writeMedian).append(" / ").append(max(write))
                    .append(" | < ").append(target).append(writeMedian < target ? " (met)" : " (**not met**)")
                    .append(" | ").append(Arrays.toString(write)).append(" |\n");
        }
        md.append("\nAnswers to the writes that failed, summed over the rounds: ");
        Map<String, Integer> failures = new TreeMap<>();
        samples.values().forEach(list -> list.forEach(s -> s.failures().forEach((k, v) -> failures.merge(k, v,
                Integer::sum))));
        md.append(failures.isEmpty() ? "none" : failures.toString()).append(".\n");
        return md.toString();
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length == 0 ? -1 : sorted[(sorted.length - 1) / 2];
    }

    private static long max(long[] values) {
        return Arrays.stream(values).max().orElse(-1);
    }

    private static Map<String, String> overrides(String[] args) {
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--override")) {
                String setting = args[i + 1];
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--override expects key=value: " + setting);
                }
                overrides.put(setting.substring(0, eq), setting.substring(eq + 1));
            }
        }
        return overrides;
    }

    private static String arg(String[] args, String name, String defaultValue) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return defaultValue;
    }
}
