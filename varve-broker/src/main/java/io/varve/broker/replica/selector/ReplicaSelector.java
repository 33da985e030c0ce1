package io.varve.broker.replica.selector;

import java.util.List;

/**
 * Chooses the replica a consumer reads a partition from (KIP-392). Called by the leader for each consumer fetch that
 * names a rack; the answer goes back as the fetch response's {@code preferred_read_replica} unless it is the leader.
 */
public interface ReplicaSelector {
    /** A replica the consumer could read from: its broker, that broker's {@code broker.rack} (or null), its log end. */
    record Candidate(int brokerId, String rack, long logEndOffset) {}

    /**
     * @param clientRack the consumer's {@code client.rack}, never empty
     * @param leader     the leader (always a valid answer)
     * @param followers  the in-sync followers whose log holds the consumer's fetch offset
     * @return the chosen replica's broker id ({@code leader.brokerId()} to stay on the leader)
     */
    int select(String clientRack, Candidate leader, List<Candidate> followers);
}
