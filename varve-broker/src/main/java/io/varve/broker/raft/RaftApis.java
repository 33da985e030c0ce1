package io.varve.broker.raft;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.BeginQuorumEpochResponse;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.EndQuorumEpochResponse;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.FetchSnapshotResponse;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which Kafka API carries each Raft message and at which versions the mapping reads and writes it: every
 * version kafka-clients 4.4.0 defines (its {@code common/message/*.json}), so a Kafka 4.4 controller or admin
 * client may pick any. The metadata partition is always {@code __cluster_metadata-0}.
 */
public final class RaftApis {
    public static final String METADATA_TOPIC = "__cluster_metadata";
    public static final int METADATA_PARTITION = 0;
    public static final Uuid METADATA_TOPIC_ID = Uuid.METADATA_TOPIC_ID;

    private RaftApis() {}

    /** The API a message travels in. */
    public static ApiKeys apiKeyOf(RaftMessage message) {
        if (message instanceof VoteRequest || message instanceof VoteResponse) {
            return ApiKeys.VOTE;
        } else if (message instanceof BeginQuorumEpochRequest || message instanceof BeginQuorumEpochResponse) {
            return ApiKeys.BEGIN_QUORUM_EPOCH;
        } else if (message instanceof EndQuorumEpochRequest || message instanceof EndQuorumEpochResponse) {
            return ApiKeys.END_QUORUM_EPOCH;
        } else if (message instanceof FetchRequest || message instanceof FetchResponse) {
            return ApiKeys.FETCH;
        } else if (message instanceof FetchSnapshotRequest || message instanceof FetchSnapshotResponse) {
            return ApiKeys.FETCH_SNAPSHOT;
        } else if (message instanceof DescribeQuorumRequest || message instanceof DescribeQuorumResponse) {
            return ApiKeys.DESCRIBE_QUORUM;
        } else if (message instanceof AddVoterRequest || message instanceof AddVoterResponse) {
            return ApiKeys.ADD_RAFT_VOTER;
        } else if (message instanceof RemoveVoterRequest || message instanceof RemoveVoterResponse) {
            return ApiKeys.REMOVE_RAFT_VOTER;
        } else if (message instanceof UpdateVoterRequest || message instanceof UpdateVoterResponse) {
            return ApiKeys.UPDATE_RAFT_VOTER;
        }
        throw new IllegalArgumentException(
                "no Kafka API carries " + message.getClass().getSimpleName());
    }

    /** The lowest version the mapping supports. */
    public static short oldestVersion(ApiKeys api) {
        return switch (api) {
            case FETCH -> 12; // the first with LastFetchedEpoch, which KRaft's fetch needs
            case VOTE,
                    BEGIN_QUORUM_EPOCH,
                    END_QUORUM_EPOCH,
                    FETCH_SNAPSHOT,
                    DESCRIBE_QUORUM,
                    ADD_RAFT_VOTER,
                    REMOVE_RAFT_VOTER,
                    UPDATE_RAFT_VOTER -> 0;
            default -> throw new IllegalArgumentException(api + " carries no Raft message");
        };
    }

    /** The highest version the mapping supports: the latest kafka-clients knows. */
    public static short latestVersion(ApiKeys api) {
        oldestVersion(api); // refuses other APIs
        return api.latestVersion();
    }

    static void checkVersion(ApiKeys api, short version) {
        if (version < oldestVersion(api) || version > latestVersion(api)) {
            throw new IllegalArgumentException(api + " v" + version + " is outside the supported " + oldestVersion(api)
                    + "-" + latestVersion(api));
        }
    }
}
