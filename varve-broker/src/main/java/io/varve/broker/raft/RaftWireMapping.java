package io.varve.broker.raft;

import io.varve.raft.core.RaftCoreConfig;
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
import org.apache.kafka.common.message.AddRaftVoterRequestData;
import org.apache.kafka.common.message.AddRaftVoterResponseData;
import org.apache.kafka.common.message.BeginQuorumEpochRequestData;
import org.apache.kafka.common.message.BeginQuorumEpochResponseData;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.EndQuorumEpochRequestData;
import org.apache.kafka.common.message.EndQuorumEpochResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.message.RemoveRaftVoterRequestData;
import org.apache.kafka.common.message.RemoveRaftVoterResponseData;
import org.apache.kafka.common.message.UpdateRaftVoterRequestData;
import org.apache.kafka.common.message.UpdateRaftVoterResponseData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Translates the Raft core's messages ({@code io.varve.raft.core.message}) to and from kafka-clients'
 * generated message classes at a given version, for {@code __cluster_metadata-0}. Versions: see {@link
 * RaftApis}; what each message leaves out (directory ids, endpoints, entry limits): see {@link
 * ElectionMessages}, {@link FetchMessages}, {@link AdminMessages}. Stateless and thread-safe.
 *
 * <p>{@code localNodeId} is the replica reading messages: version 0 of Vote and BeginQuorumEpoch does not
 * name the receiver. {@link Limits} are what the core's records lack and the wire needs, or the other way
 * round.
 */
public final class RaftWireMapping {

    /**
     * {@code maxFetchEntries}: the entry limit a received fetch gets (the core's own); {@code fetchMaxBytes}:
     * the byte limit a sent fetch asks for; {@code voterChangeTimeoutMs}: the timeout an AddRaftVoter request
     * carries.
     */
    public record Limits(int maxFetchEntries, int fetchMaxBytes, int voterChangeTimeoutMs) {
        public Limits {
            if (maxFetchEntries <= 0 || fetchMaxBytes <= 0 || voterChangeTimeoutMs <= 0) {
                throw new IllegalArgumentException("limits must be > 0: " + this);
            }
        }

        /** The core's entry limit, Kafka's {@code fetch.max.bytes} default (50 MiB), a 30 s voter change. */
        public static Limits of(RaftCoreConfig config) {
            return new Limits(config.maxFetchEntries(), 50 * 1024 * 1024, 30_000);
        }
    }

    private final int localNodeId;
    private final Limits limits;

    public RaftWireMapping(int localNodeId, Limits limits) {
        this.localNodeId = localNodeId;
        this.limits = limits;
    }

    /** The Kafka message carrying {@code message} at {@code version}. */
    public ApiMessage toKafka(RaftMessage message, short version) {
        RaftApis.checkVersion(RaftApis.apiKeyOf(message), version);
        if (message instanceof VoteRequest m) {
            return ElectionMessages.toKafka(m, version);
        } else if (message instanceof VoteResponse m) {
            return ElectionMessages.toKafka(m);
        } else if (message instanceof BeginQuorumEpochRequest m) {
            return ElectionMessages.toKafka(m);
        } else if (message instanceof BeginQuorumEpochResponse m) {
            return ElectionMessages.toKafka(m);
        } else if (message instanceof EndQuorumEpochRequest m) {
            return ElectionMessages.toKafka(m, version);
        } else if (message instanceof EndQuorumEpochResponse m) {
            return ElectionMessages.toKafka(m);
        } else if (message instanceof FetchRequest m) {
            return FetchMessages.toKafka(m, version, limits);
        } else if (message instanceof FetchResponse m) {
            return FetchMessages.toKafka(m, version);
        } else if (message instanceof FetchSnapshotRequest m) {
            return FetchMessages.toKafka(m);
        } else if (message instanceof FetchSnapshotResponse m) {
            return FetchMessages.toKafka(m);
        } else if (message instanceof DescribeQuorumRequest m) {
            return AdminMessages.toKafka(m);
        } else if (message instanceof DescribeQuorumResponse m) {
            return AdminMessages.toKafka(m, version);
        } else if (message instanceof AddVoterRequest m) {
            return AdminMessages.toKafka(m, limits);
        } else if (message instanceof AddVoterResponse m) {
            return AdminMessages.toKafka(m);
        } else if (message instanceof RemoveVoterRequest m) {
            return AdminMessages.toKafka(m);
        } else if (message instanceof UpdateVoterRequest m) {
            return AdminMessages.toKafka(m);
        } else if (message instanceof UpdateVoterResponse m) {
            return AdminMessages.toKafka(m);
        }
        return AdminMessages.toKafka((RemoveVoterResponse) message);
    }

    /**
     * The Raft message a Kafka message read at {@code version} carries.
     *
     * @throws InvalidRaftMessageException when it is not one for {@code __cluster_metadata-0}
     */
    public RaftMessage fromKafka(ApiMessage data, short version) {
        RaftApis.checkVersion(ApiKeys.forId(data.apiKey()), version);
        try {
            return decode(data, version);
        } catch (IllegalArgumentException e) {
            throw new InvalidRaftMessageException(
                    "malformed " + ApiKeys.forId(data.apiKey()) + " v" + version + ": " + e.getMessage());
        }
    }

    private RaftMessage decode(ApiMessage data, short version) {
        if (data instanceof VoteRequestData m) {
            return ElectionMessages.fromKafka(m, version, localNodeId);
        } else if (data instanceof VoteResponseData m) {
            return ElectionMessages.fromKafka(m);
        } else if (data instanceof BeginQuorumEpochRequestData m) {
            return ElectionMessages.fromKafka(m, version, localNodeId);
        } else if (data instanceof BeginQuorumEpochResponseData m) {
            return ElectionMessages.fromKafka(m);
        } else if (data instanceof EndQuorumEpochRequestData m) {
            return ElectionMessages.fromKafka(m, version);
        } else if (data instanceof EndQuorumEpochResponseData m) {
            return ElectionMessages.fromKafka(m);
        } else if (data instanceof FetchRequestData m) {
            return FetchMessages.fromKafka(m, version, limits);
        } else if (data instanceof FetchResponseData m) {
            return FetchMessages.fromKafka(m, version);
        } else if (data instanceof FetchSnapshotRequestData m) {
            return FetchMessages.fromKafka(m);
        } else if (data instanceof FetchSnapshotResponseData m) {
            return FetchMessages.fromKafka(m);
        } else if (data instanceof DescribeQuorumRequestData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof DescribeQuorumResponseData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof AddRaftVoterRequestData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof AddRaftVoterResponseData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof RemoveRaftVoterRequestData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof RemoveRaftVoterResponseData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof UpdateRaftVoterRequestData m) {
            return AdminMessages.fromKafka(m);
        } else if (data instanceof UpdateRaftVoterResponseData m) {
            return AdminMessages.fromKafka(m);
        }
        throw new InvalidRaftMessageException(data.getClass().getSimpleName() + " carries no Raft message");
    }
}
