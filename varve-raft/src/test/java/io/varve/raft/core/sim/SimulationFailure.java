package io.varve.raft.core.sim;

/** A schedule that broke an invariant (or the core's own assertions): names the seed that replays it. */
final class SimulationFailure extends AssertionError {
    final long seed;

    SimulationFailure(long seed, long atMs, String trace, Throwable cause) {
        super(
                "seed " + seed + " failed at " + atMs + " ms: " + cause.getMessage() + "\nreplay with -D"
                        + RaftSimulationTest.SEED_PROPERTY + "=" + seed + "\nlast events:\n" + trace,
                cause);
        this.seed = seed;
    }
}
