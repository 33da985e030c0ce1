package io.varve.broker.raft;

import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** DescribeQuorum as it leaves the controller listener: what the core cannot know (the wall clock, config endpoints). */
final class DescribeQuorumAnswers {
    private DescribeQuorumAnswers() {}

    /**
     * The same answer with the core's monotonic timestamps as wall-clock times (-1, never seen, stays), and the
     * endpoints of voters the voter set holds none for (a static quorum's, from {@code controller.quorum.voters}).
     */
    static DescribeQuorumResponse withWallClock(DescribeQuorumResponse response, ControllerQuorumInfo info) {
        long offset = info.wallClockOffsetMs();
        List<VoterSet.Voter> nodes = new ArrayList<>(response.nodes());
        for (ReplicaProgress voter : response.currentVoters()) {
            if (nodes.stream().noneMatch(n -> n.id() == voter.replicaId())) {
                info.addresses()
                        .endpointOf(voter.replicaId())
                        .ifPresent(e -> nodes.add(new VoterSet.Voter(
                                voter.replicaId(),
                                voter.directoryId(),
                                new TreeMap<>(Map.of(info.addresses().listenerName(), e)))));
            }
        }
        return new DescribeQuorumResponse(
                response.error(),
                response.leaderId(),
                response.leaderEpoch(),
                response.highWatermark(),
                shift(response.currentVoters(), offset),
                shift(response.observers(), offset),
                nodes);
    }

    private static List<ReplicaProgress> shift(List<ReplicaProgress> replicas, long offsetMs) {
        List<ReplicaProgress> out = new ArrayList<>(replicas.size());
        for (ReplicaProgress p : replicas) {
            out.add(new ReplicaProgress(
                    p.replicaId(),
                    p.directoryId(),
                    p.logEndOffset(),
                    p.lastFetchTimestampMs() < 0 ? -1 : p.lastFetchTimestampMs() + offsetMs,
                    p.lastCaughtUpTimestampMs() < 0 ? -1 : p.lastCaughtUpTimestampMs() + offsetMs));
        }
        return out;
    }
}
