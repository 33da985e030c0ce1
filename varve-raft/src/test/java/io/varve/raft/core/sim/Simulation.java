package io.varve.raft.core.sim;

import io.varve.raft.core.Proposal;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.RaftOutput;
import io.varve.raft.core.Role;
import io.varve.raft.core.VoteRule;
import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftRequest;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.sim.SimNetwork.Delivery;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * One deterministic schedule: a cluster of voters and observers over a {@link SimNetwork}, driven tick
 * by tick by one seeded {@link Random}. A chaos phase injects loss, delay, reordering, duplication,
 * symmetric and one-way partitions, crash-restarts (losing what was not flushed), snapshots, graceful
 * resignations and client proposals to whoever leads; then the network heals and every replica must
 * come back up, a leader must be elected within {@link #LEADER_BOUND_MS} and a probe entry committed on
 * every replica within {@link #HEALED_BOUND_MS}. Invariants are checked after every tick.
 */
final class Simulation {
    static final long TICK_MS = 10;
    static final long CHAOS_MS = 15_000;
    /** After healing: a leader followed by a majority within this (fetch timeout + a few election rounds). */
    static final long LEADER_BOUND_MS = 6_000;
    /** After healing: a probe committed on every replica within this. */
    static final long HEALED_BOUND_MS = 10_000;

    private static final int FULL_CHECK_EVERY_TICKS = 100;
    private static final int TRACE_LINES = 80;

    /** The admin client's id: answers addressed to it are dropped. */
    private static final int ADMIN_ID = 1000;

    private final long seed;
    private final boolean changeVoters;
    private long adminRequests;
    private final Random random;
    private final SimNetwork network;
    private final List<SimNode> nodes = new ArrayList<>();
    private final InvariantChecker checker = new InvariantChecker();
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private long nowMs;
    private long proposals;
    long healedAfterMs = -1;
    /** After the healthy leader's crash for good: when a new one was followed by a majority (-1: not run). */
    long reelectedAfterMs = -1;

    int crashes;
    long leaderAfterHealMs = -1;

    Simulation(long seed, int voters, int observers, VoteRule voteRule) {
        this(seed, voters, observers, voteRule, false);
    }

    /** With {@code changeVoters}, the chaos phase also adds and removes voters (KIP-853). */
    Simulation(long seed, int voters, int observers, VoteRule voteRule, boolean changeVoters) {
        this.seed = seed;
        this.changeVoters = changeVoters;
        this.random = new Random(seed);
        this.network = new SimNetwork(random, voters + observers);
        Set<Integer> voterIds = new HashSet<>();
        for (int i = 0; i < voters; i++) {
            voterIds.add(i);
        }
        for (int id = 0; id < voters + observers; id++) {
            // The bootstrap voters are ids only; each replica knows its own directory id and endpoint, so every
            // voter announces them with UpdateVoter, and voter changes carry them, under the same faults.
            RaftCoreConfig config = new RaftCoreConfig(
                            id, "sim-cluster", voterIds, 1000, 1000, 2000, 1000, 20, 300, 32, 256, 1024)
                    .withQuorum(1, 0, voterOf(id));
            nodes.add(new SimNode(id, config, voteRule));
        }
        network.lossRate = random.nextDouble() * 0.10;
        network.duplicateRate = random.nextDouble() * 0.05;
        network.maxDelayMs = 1 + random.nextInt(40);
    }

    /** Runs the schedule; throws {@link SimulationFailure} naming the seed on the first violation. */
    void run() {
        try {
            for (SimNode node : nodes) {
                node.start(new Random(random.nextLong()), 0);
            }
            long tick = 0;
            for (; nowMs < CHAOS_MS; nowMs += TICK_MS, tick++) {
                injectFaults();
                step(tick);
            }
            heal();
            long healStartMs = nowMs;
            Probe probe = null;
            for (; nowMs - healStartMs <= HEALED_BOUND_MS; nowMs += TICK_MS, tick++) {
                step(tick);
                SimNode leader = stableLeader();
                if (leader != null && leaderAfterHealMs < 0) {
                    leaderAfterHealMs = nowMs - healStartMs;
                }
                checker.check(
                        leaderAfterHealMs >= 0 || nowMs - healStartMs <= LEADER_BOUND_MS,
                        "no leader followed by a majority within " + LEADER_BOUND_MS + " ms of healing");
                if (leader == null) {
                    continue;
                }
                if (probe == null || probe.lost(checker) || probe.epoch < leader.core.epoch()) {
                    probe = propose(leader, "probe-" + tick);
                }
                if (probe != null && probe.committedEverywhere(checker, nodes)) {
                    healedAfterMs = nowMs - healStartMs;
                    if (leader.core.voters().size() >= 3) {
                        loseTheLeaderForGood(leader, tick);
                    }
                    return;
                }
            }
            throw new InvariantChecker.InvariantViolation(
                    "the healed cluster did not commit a probe on every replica within " + HEALED_BOUND_MS + " ms");
        } catch (RuntimeException | AssertionError e) {
            throw new SimulationFailure(seed, nowMs, String.join("\n", trace) + describeNodes(), e);
        }
    }

    /**
     * The healthy cluster's leader crashes and stays down: the majority left, connected, must elect another leader
     * within {@link #LEADER_BOUND_MS}. (Followers of a dead leader once undid each other's pre-votes forever.)
     */
    private void loseTheLeaderForGood(SimNode leader, long tick) {
        leader.crash(Long.MAX_VALUE);
        crashes++;
        note("leader " + leader.id + " crashes for good");
        long crashedAtMs = nowMs;
        for (nowMs += TICK_MS, tick++; nowMs - crashedAtMs <= LEADER_BOUND_MS; nowMs += TICK_MS, tick++) {
            step(tick);
            if (stableLeader() != null) {
                reelectedAfterMs = nowMs - crashedAtMs;
                return;
            }
        }
        throw new InvariantChecker.InvariantViolation("no new leader followed by a majority within " + LEADER_BOUND_MS
                + " ms of the leader's crash, with the rest of the quorum connected");
    }

    /** What the schedule exercised, for the test's summary. */
    Stats stats() {
        int truncations = 0;
        int installs = 0;
        int maxEpoch = 0;
        for (SimNode node : nodes) {
            truncations += node.log.truncations();
            installs += node.log.resets();
            if (node.isUp()) { // the leader crashed for good at the end has no core
                maxEpoch = Math.max(maxEpoch, node.core.epoch());
            }
        }
        return new Stats(
                checker.committedCount(),
                maxEpoch,
                truncations,
                installs,
                crashes,
                checker.committedOfType(EntryType.VOTERS));
    }

    record Stats(long committed, int epochs, int truncations, int snapshotInstalls, int crashes, long voterChanges) {}

    private void step(long tick) {
        for (SimNode node : nodes) {
            if (!node.isUp() && node.restartAtMs >= 0 && nowMs >= node.restartAtMs) {
                node.start(new Random(random.nextLong()), nowMs);
                note("node " + node.id + " restarts");
            }
        }
        for (Delivery delivery : network.due(nowMs)) {
            SimNode node = nodes.get(delivery.to());
            if (node.isUp()) {
                process(node, node.core.handle(delivery.message(), nowMs));
            }
        }
        for (SimNode node : nodes) {
            if (node.isUp()) {
                process(node, node.core.poll(nowMs));
            }
        }
        boolean full = tick % FULL_CHECK_EVERY_TICKS == 0;
        for (SimNode node : nodes) {
            if (node.isUp()) {
                checker.checkNode(node, full);
            }
        }
    }

    private void process(SimNode node, RaftOutput output) {
        for (OutboundMessage message : output.messages()) {
            if (message.destinationId() < nodes.size()) { // answers to the admin client are dropped
                network.send(node.id, message, nowMs);
            }
        }
        node.apply(output, checker);
        String role = node.core.role() + " epoch " + node.core.epoch() + " leader " + node.core.leaderId();
        if (!role.equals(node.lastRole)) {
            note("node " + node.id + " " + role);
            node.lastRole = role;
        }
    }

    private String describeNodes() {
        StringBuilder out = new StringBuilder();
        for (SimNode node : nodes) {
            out.append("\nnode ").append(node.id);
            if (!node.isUp()) {
                out.append(" down");
                continue;
            }
            out.append(' ')
                    .append(node.core.role())
                    .append(" epoch ")
                    .append(node.core.epoch())
                    .append(" leader ")
                    .append(node.core.leaderId())
                    .append(" voted ")
                    .append(node.core.votedId())
                    .append(" log [")
                    .append(node.log.startOffset())
                    .append(", ")
                    .append(node.log.endOffset())
                    .append(") last epoch ")
                    .append(node.log.lastEpoch())
                    .append(" hw ")
                    .append(node.core.highWatermark());
        }
        return out.toString();
    }

    private void injectFaults() {
        double roll = random.nextDouble();
        if (roll < 0.002) {
            partition();
        } else if (roll < 0.005) {
            network.healAll();
            note("network healed");
        } else if (roll < 0.0065) {
            // Half the crashes hit a leader: that is where elections and divergence come from.
            SimNode victim = random.nextBoolean() ? anyLeader() : nodes.get(random.nextInt(nodes.size()));
            if (victim != null && victim.isUp()) {
                victim.crash(nowMs + 200 + random.nextInt(3000));
                crashes++;
                note("node " + victim.id + " crashes");
            }
        } else if (roll < 0.007) {
            SimNode leader = anyLeader();
            if (leader != null) {
                process(leader, leader.core.resign(nowMs));
                note("node " + leader.id + " resigns");
            }
        }
        if (random.nextDouble() < 0.08) {
            SimNode leader = anyLeader();
            if (leader != null) {
                propose(leader, "entry-" + proposals++);
            }
        }
        if (changeVoters && random.nextDouble() < 0.004) {
            changeVoters();
        }
        if (random.nextDouble() < 0.01) {
            SimNode node = nodes.get(random.nextInt(nodes.size()));
            if (node.isUp() && node.applied.size() - node.log.startOffset() >= 16) {
                node.core.snapshotTaken(node.applied.size(), node.snapshotOfApplied());
                note("node " + node.id + " snapshots at " + node.applied.size());
            }
        }
    }

    /** Replica {@code id}'s directory id and endpoint: fixed, so a schedule replays. */
    static VoterSet.Voter voterOf(int id) {
        return new VoterSet.Voter(
                id, new UUID(1, id), Map.of("CONTROLLER", new VoterSet.Endpoint("node-" + id, 9000 + id)));
    }

    /** KIP-853: an admin asks whoever leads to add an observer to the voters, or to remove a voter. */
    private void changeVoters() {
        SimNode leader = anyLeader();
        if (leader == null) {
            return;
        }
        VoterSet voters = leader.core.voters();
        int target = random.nextInt(nodes.size());
        // Now and then a removal names a wrong directory id, which must find no voter.
        UUID directoryId =
                random.nextInt(8) == 0 ? new UUID(7, target) : voterOf(target).directoryId();
        RaftRequest request = voters.contains(target)
                ? new RemoveVoterRequest("sim-cluster", target, directoryId)
                : new AddVoterRequest("sim-cluster", voterOf(target));
        process(leader, leader.core.handle(new InboundMessage(ADMIN_ID, adminRequests++, request), nowMs));
        note("admin asks leader " + leader.id + ": " + request);
    }

    private void partition() {
        int kind = random.nextInt(4);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            ids.add(i);
        }
        Collections.shuffle(ids, random);
        SimNode leader = anyLeader();
        if (kind == 3 && leader != null) {
            network.isolate(List.of(leader.id));
            note("leader " + leader.id + " isolated");
        } else if (kind == 0) {
            network.isolate(ids.subList(0, 1));
            note("node " + ids.get(0) + " isolated");
        } else if (kind == 1) {
            List<Integer> side = ids.subList(0, 1 + random.nextInt(nodes.size() - 1));
            network.isolate(side);
            note("partition " + side);
        } else {
            for (int i = 0; i < 1 + random.nextInt(3); i++) {
                int from = random.nextInt(nodes.size());
                int to = random.nextInt(nodes.size());
                network.cut(from, to);
                note("link " + from + "->" + to + " cut");
            }
        }
    }

    private void heal() {
        network.healAll();
        network.lossRate = 0;
        network.duplicateRate = 0;
        for (SimNode node : nodes) {
            if (!node.isUp()) {
                node.start(new Random(random.nextLong()), nowMs);
            }
        }
        note("all healed at " + nowMs);
    }

    private SimNode anyLeader() {
        List<SimNode> leaders = new ArrayList<>();
        for (SimNode node : nodes) {
            if (node.isUp() && node.core.role() == Role.LEADER) {
                leaders.add(node);
            }
        }
        return leaders.isEmpty() ? null : leaders.get(random.nextInt(leaders.size()));
    }

    /** A leader that a majority of voters follow in its epoch. */
    private SimNode stableLeader() {
        for (SimNode node : nodes) {
            if (!node.isUp() || node.core.role() != Role.LEADER) {
                continue;
            }
            int following = 0;
            VoterSet voters = node.core.voters();
            for (SimNode other : nodes) {
                if (voters.contains(other.id)
                        && other.isUp()
                        && other.core.epoch() == node.core.epoch()
                        && other.core.leaderId() == node.id) {
                    following++;
                }
            }
            if (following >= voters.majority()) {
                return node;
            }
        }
        return null;
    }

    private Probe propose(SimNode leader, String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        Proposal proposal = leader.core.propose(List.of(payload), nowMs);
        return proposal.accepted() ? new Probe(proposal.epoch(), proposal.baseOffset(), payload) : null;
    }

    private void note(String line) {
        if (trace.size() >= TRACE_LINES) {
            trace.removeFirst();
        }
        trace.addLast(nowMs + "ms " + line);
    }

    private record Probe(int epoch, long offset, byte[] payload) {
        boolean lost(InvariantChecker checker) {
            LogEntry entry = checker.committedAt(offset);
            return entry != null && !java.util.Arrays.equals(entry.payload(), payload);
        }

        boolean committedEverywhere(InvariantChecker checker, List<SimNode> nodes) {
            LogEntry entry = checker.committedAt(offset);
            if (entry == null || !java.util.Arrays.equals(entry.payload(), payload)) {
                return false;
            }
            for (SimNode node : nodes) {
                if (node.core.highWatermark() <= offset) {
                    return false;
                }
            }
            return true;
        }
    }
}
