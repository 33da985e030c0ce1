package io.varve.raft.node;

/**
 * Limits of a {@link RaftRuntime}: the bounded event queue ({@code queueCapacity}: inbound messages and
 * commands together), how often the core's timers run when nothing arrives ({@code tickMs}), how many
 * events one loop turn handles before the timers run ({@code maxEventsPerTurn}), how many proposals may
 * wait for their commit ({@code maxPendingProposals}) and how long {@link RaftRuntime#close()} waits for
 * the thread ({@code closeTimeoutMs}).
 */
public record RaftRuntimeConfig(
        int queueCapacity, int tickMs, int maxEventsPerTurn, int maxPendingProposals, long closeTimeoutMs) {

    public RaftRuntimeConfig {
        if (queueCapacity <= 0
                || tickMs <= 0
                || maxEventsPerTurn <= 0
                || maxPendingProposals <= 0
                || closeTimeoutMs <= 0) {
            throw new IllegalArgumentException("every limit must be > 0: " + this);
        }
    }

    public static RaftRuntimeConfig defaults() {
        return new RaftRuntimeConfig(4096, 5, 256, 16_384, 10_000);
    }
}
