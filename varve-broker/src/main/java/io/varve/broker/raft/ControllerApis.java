package io.varve.broker.raft;

import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The controller listener's answers that are not Raft messages: ApiVersions (the Raft APIs, ApiVersions and
 * DescribeCluster) and DescribeCluster for {@code endpointType=2} (KIP-919: the voters on the controller listener
 * and the leader as the active controller). A request for brokers gets UNSUPPORTED_ENDPOINT_TYPE, as from a Kafka
 * controller.
 */
final class ControllerApis {
    /** DescribeCluster's endpoint type for controllers. */
    static final byte CONTROLLERS = 2;

    private ControllerApis() {}

    static ApiVersionsResponseData apiVersions(boolean supportedVersion) {
        ApiVersionsResponseData.ApiVersionCollection keys = new ApiVersionsResponseData.ApiVersionCollection();
        List<ApiKeys> apis = new ArrayList<>(List.of(
                ApiKeys.VOTE,
                ApiKeys.BEGIN_QUORUM_EPOCH,
                ApiKeys.END_QUORUM_EPOCH,
                ApiKeys.FETCH,
                ApiKeys.FETCH_SNAPSHOT,
                ApiKeys.DESCRIBE_QUORUM,
                ApiKeys.ADD_RAFT_VOTER,
                ApiKeys.REMOVE_RAFT_VOTER,
                ApiKeys.UPDATE_RAFT_VOTER));
        for (ApiKeys api : apis) {
            keys.add(new ApiVersionsResponseData.ApiVersion()
                    .setApiKey(api.id)
                    .setMinVersion(RaftApis.oldestVersion(api))
                    .setMaxVersion(RaftApis.latestVersion(api)));
        }
        for (ApiKeys api : List.of(ApiKeys.API_VERSIONS, ApiKeys.DESCRIBE_CLUSTER)) {
            keys.add(new ApiVersionsResponseData.ApiVersion()
                    .setApiKey(api.id)
                    .setMinVersion(api.oldestVersion())
                    .setMaxVersion(api.latestVersion()));
        }
        return new ApiVersionsResponseData()
                .setErrorCode(supportedVersion ? Errors.NONE.code() : Errors.UNSUPPORTED_VERSION.code())
                .setApiKeys(keys)
                .setFinalizedFeaturesEpoch(-1L);
    }

    static DescribeClusterResponseData describeCluster(DescribeClusterRequestData request, ControllerQuorumInfo info) {
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setEndpointType(request.endpointType())
                .setClusterId(info.clusterId());
        if (request.endpointType() != CONTROLLERS) {
            return response.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("This is a controller listener: ask it for controllers (endpoint type 2).");
        }
        int leaderId = info.leaderId().getAsInt();
        response.setControllerId(leaderId);
        List<Integer> ids = new ArrayList<>(info.voterIds().get());
        if (leaderId >= 0 && !ids.contains(leaderId)) {
            ids.add(leaderId); // a leader being removed still leads until the removal commits
        }
        for (int id : ids) {
            Optional<VoterSet.Endpoint> endpoint = info.addresses().endpointOf(id);
            endpoint.ifPresent(e -> response.brokers()
                    .add(new DescribeClusterResponseData.DescribeClusterBroker()
                            .setBrokerId(id)
                            .setHost(e.host())
                            .setPort(e.port())));
        }
        return response;
    }

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
                                new java.util.TreeMap<>(Map.of(info.addresses().listenerName(), e)))));
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
