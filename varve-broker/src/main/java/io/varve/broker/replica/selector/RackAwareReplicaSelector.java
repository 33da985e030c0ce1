package io.varve.broker.replica.selector;

import java.util.List;

/**
 * Sends a consumer to a replica in its own rack: the leader when the leader is there, else the in-sync follower of
 * that rack that has the most of the log (the lowest broker id among equals, so the answer is stable), else the
 * leader. Reading in the client's rack is the point (cross-zone traffic costs); freshness decides among equals.
 */
public final class RackAwareReplicaSelector implements ReplicaSelector {
    @Override
    public int select(String clientRack, Candidate leader, List<Candidate> followers) {
        if (clientRack.equals(leader.rack())) {
            return leader.brokerId();
        }
        Candidate best = null;
        for (Candidate c : followers) {
            if (!clientRack.equals(c.rack())) {
                continue;
            }
            if (best == null
                    || c.logEndOffset() > best.logEndOffset()
                    || (c.logEndOffset() == best.logEndOffset() && c.brokerId() < best.brokerId())) {
                best = c;
            }
        }
        return best == null ? leader.brokerId() : best.brokerId();
    }
}
