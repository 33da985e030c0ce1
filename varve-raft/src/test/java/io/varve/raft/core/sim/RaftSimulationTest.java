package io.varve.raft.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.VoteRule;
import org.junit.jupiter.api.Test;

/**
 * Deterministic simulation of the Raft core (FoundationDB style): many seeded schedules of faults,
 * every invariant checked after every tick, a failing seed printed and replayable alone with
 * {@code -Dvarve.raft.sim.seed=N}. {@code -Dvarve.raft.sim.schedules=K} changes how many schedules
 * each test runs.
 */
class RaftSimulationTest {
    static final String SEED_PROPERTY = "varve.raft.sim.seed";
    static final String SCHEDULES_PROPERTY = "varve.raft.sim.schedules";

    private static final long THREE_VOTER_SEEDS = 0;
    private static final long FIVE_VOTER_SEEDS = 1_000_000;
    private static final long PLANTED_BUG_SEEDS = 2_000_000;
    private static final long VOTER_CHANGE_SEEDS = 3_000_000;
    private static final int PLANTED_BUG_MAX_SCHEDULES = 200;

    @Test
    void threeVotersAndAnObserverKeepEveryInvariantUnderFaults() {
        runSchedules(THREE_VOTER_SEEDS, schedules(1500), 3, 1, false);
    }

    @Test
    void fiveVotersAndTwoObserversKeepEveryInvariantUnderFaults() {
        runSchedules(FIVE_VOTER_SEEDS, schedules(1000), 5, 2, false);
    }

    /** KIP-853: voters added (from the observers) and removed during the faults, one change at a time. */
    @Test
    void voterChangesKeepEveryInvariantUnderFaults() {
        runSchedules(VOTER_CHANGE_SEEDS, schedules(1000), 3, 2, true);
    }

    /**
     * Shows the simulation has teeth: with a vote rule that ignores how up to date the candidate's log is,
     * a replica that missed committed entries can win an election, and some schedule catches it.
     */
    @Test
    void catchesAPlantedBugThatGrantsVotesToShorterLogs() {
        VoteRule grantsAnyLog = (candidateLogEnd, voterLogEnd) -> true;
        SimulationFailure found = null;
        int ran = 0;
        for (long seed = PLANTED_BUG_SEEDS;
                seed < PLANTED_BUG_SEEDS + PLANTED_BUG_MAX_SCHEDULES && found == null;
                seed++) {
            ran++;
            try {
                new Simulation(seed, 3, 1, grantsAnyLog).run();
            } catch (SimulationFailure failure) {
                found = failure;
            }
        }
        assertThat(found)
                .as("a violation within " + PLANTED_BUG_MAX_SCHEDULES + " schedules of the buggy variant")
                .isNotNull();
        System.out.println("planted bug caught after " + ran + " schedules: "
                + found.getMessage().lines().findFirst().orElse(""));
    }

    private static void runSchedules(long firstSeed, int count, int voters, int observers, boolean changeVoters) {
        String replay = System.getProperty(SEED_PROPERTY);
        if (replay != null) {
            long seed = Long.parseLong(replay);
            if (seed >= firstSeed && seed < firstSeed + 1_000_000) {
                new Simulation(seed, voters, observers, VoteRule.RAFT, changeVoters).run();
            }
            return;
        }
        long slowestLeaderMs = 0;
        long slowestHealMs = 0;
        long slowestReelectionMs = 0;
        long committed = 0;
        long epochs = 0;
        long truncations = 0;
        long installs = 0;
        long crashes = 0;
        long voterChanges = 0;
        for (long seed = firstSeed; seed < firstSeed + count; seed++) {
            Simulation simulation = new Simulation(seed, voters, observers, VoteRule.RAFT, changeVoters);
            simulation.run();
            slowestLeaderMs = Math.max(slowestLeaderMs, simulation.leaderAfterHealMs);
            slowestHealMs = Math.max(slowestHealMs, simulation.healedAfterMs);
            slowestReelectionMs = Math.max(slowestReelectionMs, simulation.reelectedAfterMs);
            Simulation.Stats stats = simulation.stats();
            committed += stats.committed();
            epochs += stats.epochs();
            truncations += stats.truncations();
            installs += stats.snapshotInstalls();
            crashes += stats.crashes();
            voterChanges += stats.voterChanges();
        }
        System.out.println(count + " schedules of " + voters + " voters + " + observers + " observers: after healing, "
                + "a leader within " + slowestLeaderMs + " ms and a probe committed everywhere within "
                + slowestHealMs + " ms, a new leader within " + slowestReelectionMs
                + " ms of the healthy leader's crash for good (worst schedule); in total " + committed
                + " entries committed, " + epochs
                + " epochs, " + crashes + " crashes, " + truncations + " log truncations, " + installs
                + " snapshots installed from a leader, " + voterChanges + " voter changes committed");
    }

    private static int schedules(int normal) {
        return Integer.getInteger(SCHEDULES_PROPERTY, normal);
    }
}
