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

    /**
     * Varve's defaults: an election timeout of 500 ms, an election backoff of at most 250 ms and a fetch timeout of 1 s,
     * half of Kafka's, so that a controller that dies is replaced in about a second rather than two or three. Shorter
     * is safe here because a follower that times out by mistake (a pause, a slow link) only asks for pre-votes
     * (KIP-996), which the others refuse while they hear from the leader, so nothing is deposed and no epoch is spent;
     * and a leader cut off from the majority resigns within the same second (check-quorum) instead of taking writes it
     * cannot commit. The cost of a false alarm is one round of pre-vote requests.
     */
    public static final QuorumTimeouts VARVE_DEFAULTS = new QuorumTimeouts(500, 250, 1000, 2000, 20);

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
