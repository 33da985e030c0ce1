package io.varve.raft.node;

import io.varve.raft.core.RaftCoreConfig;
import java.util.Set;

/**
 * The operator's timing settings of a metadata quorum, with Kafka's key names and defaults:
 * {@code controller.quorum.election.timeout.ms}, {@code controller.quorum.election.backoff.max.ms},
 * {@code controller.quorum.fetch.timeout.ms}, {@code controller.quorum.request.timeout.ms} and
 * {@code controller.quorum.retry.backoff.ms}. They decide how fast a quorum notices a dead leader (the fetch
 * timeout) and elects the next (the randomized election timeout and backoff).
 */
public record QuorumTimeouts(
        int electionTimeoutMs, int electionBackoffMaxMs, int fetchTimeoutMs, int requestTimeoutMs, int retryBackoffMs) {

    /** Kafka's defaults: the ones {@link RaftCoreConfig#defaults} holds. */
    public static final QuorumTimeouts DEFAULTS = of(RaftCoreConfig.defaults(0, "defaults", Set.of(0)));

    /** The long-poll wait of a follower's fetch, which a request timeout must exceed. */
    public static final int FETCH_MAX_WAIT_MS =
            RaftCoreConfig.defaults(0, "defaults", Set.of(0)).fetchMaxWaitMs();

    private static QuorumTimeouts of(RaftCoreConfig config) {
        return new QuorumTimeouts(
                config.electionTimeoutMs(),
                config.electionBackoffMaxMs(),
                config.fetchTimeoutMs(),
                config.requestTimeoutMs(),
                config.retryBackoffMs());
    }
}
