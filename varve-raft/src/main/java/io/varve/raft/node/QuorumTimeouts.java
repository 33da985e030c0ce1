package io.varve.raft.node;

/**
 * The Raft timings an operator sets, with Kafka's key names: {@code controller.quorum.election.timeout.ms}, {@code
 * controller.quorum.election.backoff.max.ms}, {@code controller.quorum.fetch.timeout.ms}, {@code
 * controller.quorum.request.timeout.ms} and {@code controller.quorum.retry.backoff.ms}.
 */
public record QuorumTimeouts(
        int electionTimeoutMs, int electionBackoffMaxMs, int fetchTimeoutMs, int requestTimeoutMs, int retryBackoffMs) {

    /** Kafka 4.x's defaults. */
    public static final QuorumTimeouts KAFKA_DEFAULTS = new QuorumTimeouts(1000, 1000, 2000, 2000, 20);

    public QuorumTimeouts {
        if (electionTimeoutMs <= 0
                || electionBackoffMaxMs <= 0
                || fetchTimeoutMs <= 0
                || requestTimeoutMs <= 0
                || retryBackoffMs <= 0) {
            throw new IllegalArgumentException("every quorum timeout must be > 0: " + electionTimeoutMs + ", "
                    + electionBackoffMaxMs + ", " + fetchTimeoutMs + ", " + requestTimeoutMs + ", " + retryBackoffMs);
        }
    }
}
