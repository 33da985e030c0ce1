package io.varve.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.BeginQuorumEpochResponse;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.EndQuorumEpochResponse;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.FetchSnapshotResponse;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.RaftRequest;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import io.varve.raft.core.message.VoterSet;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.Test;

/**
 * Every Raft message, at every version the mapping supports, goes core record -> Kafka's generated class
 * -> bytes -> Kafka's generated class -> core record, and comes back as it left, or with exactly what
 * that version cannot carry replaced by its default.
 */
class RaftWireMappingTest {
    static final int LOCAL_ID = 2;
    static final RaftWireMapping.Limits LIMITS = new RaftWireMapping.Limits(64, 1 << 20, 30_000);
    private final RaftWireMapping mapping = new RaftWireMapping(LOCAL_ID, LIMITS);

    @Test
    void electionMessagesRoundTripAtEveryVersion() {
        check(new VoteRequest("cluster-a", LOCAL_ID, 7, 1, 6, 120, false));
        check(
                new VoteRequest("cluster-a", 3, 7, 1, 6, 120, false),
                (m, v) -> v == 0 ? withVoter((VoteRequest) m, LOCAL_ID) : m);
        checkFrom((short) 2, new VoteRequest("cluster-a", LOCAL_ID, 7, 1, 6, 120, true));
        check(new VoteRequest(null, LOCAL_ID, 0, 0, 0, 0, false));
        check(new VoteResponse(RaftError.NONE, 1, 7, true));
        check(new VoteResponse(RaftError.FENCED_LEADER_EPOCH, -1, 9, false));
        check(new VoteResponse(RaftError.INCONSISTENT_CLUSTER_ID, 3, 9, false));
        check(new BeginQuorumEpochRequest("cluster-a", LOCAL_ID, 8, 1));
        check(new BeginQuorumEpochResponse(RaftError.NONE, 1, 8));
        check(new BeginQuorumEpochResponse(RaftError.INCONSISTENT_VOTER_SET, 1, 8));
        check(new EndQuorumEpochRequest("cluster-a", 8, 1, List.of(3, 0, 4)));
        check(new EndQuorumEpochRequest("cluster-a", 8, 1, List.of()));
        check(new EndQuorumEpochResponse(RaftError.NONE, 1, 8));
        check(new EndQuorumEpochResponse(RaftError.NOT_LEADER_OR_FOLLOWER, 4, 9));
    }

    @Test
    void fetchMessagesRoundTripAtEveryVersion() {
        check(new FetchRequest("cluster-a", 3, 8, 1_000, 7, LIMITS.maxFetchEntries(), 500));
        check(new FetchRequest("cluster-a", 3, 8, 1_000, 7, 9, 500), (m, v) -> withMaxEntries((FetchRequest) m));
        java.util.UUID dir = java.util.UUID.randomUUID();
        check(
                new FetchRequest("cluster-a", 3, 8, 1_000, 7, LIMITS.maxFetchEntries(), 500, dir),
                (m, v) -> v >= 17 ? m : withMaxEntries((FetchRequest) m));
        check(new FetchResponse(RaftError.NONE, 1, 8, 990, 100, Optional.empty(), Optional.empty(), entries()));
        check(new FetchResponse(RaftError.NONE, 1, 8, 990, 100, Optional.empty(), Optional.empty(), List.of()));
        check(new FetchResponse(
                RaftError.NONE, 1, 8, 990, 100, Optional.of(new OffsetAndEpoch(950, 6)), Optional.empty(), List.of()));
        check(new FetchResponse(
                RaftError.NONE, 1, 8, 990, 100, Optional.empty(), Optional.of(new SnapshotId(100, 5)), List.of()));
        check(FetchResponse.error(RaftError.FENCED_LEADER_EPOCH, 1, 8));
        check(FetchResponse.error(RaftError.INCONSISTENT_CLUSTER_ID, -1, -1));
        check(FetchResponse.error(RaftError.INVALID_REQUEST, 1, 8));
        check(new FetchSnapshotRequest("cluster-a", 3, 8, new SnapshotId(100, 5), 65_536, 1 << 20));
        check(new FetchSnapshotResponse(RaftError.NONE, 1, 8, new SnapshotId(100, 5), 200_000, 65_536, bytes(4096)));
        check(new FetchSnapshotResponse(RaftError.NONE, 1, 8, new SnapshotId(100, 5), 0, 0, new byte[0]));
        check(FetchSnapshotResponse.error(RaftError.SNAPSHOT_NOT_FOUND, 1, 8));
        check(FetchSnapshotResponse.error(RaftError.POSITION_OUT_OF_RANGE, 1, 8));
    }

    @Test
    void adminMessagesRoundTripAtEveryVersion() {
        check(new DescribeQuorumRequest());
        DescribeQuorumResponse describe = new DescribeQuorumResponse(
                RaftError.NONE,
                1,
                8,
                990,
                List.of(new ReplicaProgress(1, 1000, 5_000, 5_000), new ReplicaProgress(3, 990, 4_900, -1)),
                List.of(new ReplicaProgress(7, 800, 4_000, 3_000)));
        check(describe, (m, v) -> v == 0 ? withoutTimestamps((DescribeQuorumResponse) m) : m);
        check(new DescribeQuorumResponse(RaftError.NOT_LEADER_OR_FOLLOWER, 3, 8, -1, List.of(), List.of()));
        check(new AddVoterRequest("cluster-a", 4));
        check(new AddVoterResponse(RaftError.NONE, null, -1, -1));
        check(new AddVoterResponse(RaftError.DUPLICATE_VOTER, "4 already votes", 1, 8), (m, v) -> noLeader(m));
        check(new RemoveVoterRequest("cluster-a", 4));
        check(new RemoveVoterResponse(RaftError.VOTER_NOT_FOUND, "no voter 4", 1, 8), (m, v) -> noLeader(m));
        check(new RemoveVoterResponse(RaftError.REQUEST_TIMED_OUT, null, -1, -1));
    }

    @Test
    void directoryIdsListenersAndNodesRoundTripWhereTheVersionCarriesThem() {
        java.util.UUID dir = java.util.UUID.randomUUID();
        VoterSet.Voter voter =
                new VoterSet.Voter(4, dir, java.util.Map.of("CONTROLLER", new VoterSet.Endpoint("127.0.0.1", 9093)));
        check(new AddVoterRequest("cluster-a", voter));
        check(new RemoveVoterRequest("cluster-a", 4, dir));
        check(new UpdateVoterRequest("cluster-a", 8, voter));
        check(new UpdateVoterResponse(RaftError.FENCED_LEADER_EPOCH, 1, 9));
        DescribeQuorumResponse describe = new DescribeQuorumResponse(
                RaftError.NONE,
                1,
                8,
                990,
                List.of(new ReplicaProgress(4, dir, 1000, 5_000, 5_000)),
                List.of(new ReplicaProgress(7, 800, 4_000, 3_000)),
                // Nodes carry endpoints only: a node's directory id is in its ReplicaState.
                List.of(new VoterSet.Voter(4, VoterSet.Voter.NO_DIRECTORY_ID, voter.endpoints())));
        check(describe, (m, v) -> {
            DescribeQuorumResponse r = (DescribeQuorumResponse) m;
            if (v >= 2) {
                return r;
            }
            DescribeQuorumResponse noIds = new DescribeQuorumResponse(
                    r.error(),
                    r.leaderId(),
                    r.leaderEpoch(),
                    r.highWatermark(),
                    r.currentVoters().stream()
                            .map(p -> new ReplicaProgress(
                                    p.replicaId(),
                                    p.logEndOffset(),
                                    p.lastFetchTimestampMs(),
                                    p.lastCaughtUpTimestampMs()))
                            .toList(),
                    r.observers());
            return v == 0 ? withoutTimestamps(noIds) : noIds;
        });
    }

    @Test
    void aPreVoteCannotBeWrittenBeforeVoteV2() {
        VoteRequest preVote = new VoteRequest("cluster-a", LOCAL_ID, 7, 1, 6, 120, true);
        assertThatThrownBy(() -> mapping.toKafka(preVote, (short) 1)).hasMessageContaining("needs Vote v2");
    }

    @Test
    void versionsOutsideTheSupportedRangeAreRefused() {
        FetchRequest fetch = new FetchRequest("c", 3, 8, 0, 0, 64, 500);
        assertThatThrownBy(() -> mapping.toKafka(fetch, (short) 11)).hasMessageContaining("outside the supported 12-");
        assertThatThrownBy(() -> mapping.toKafka(new VoteResponse(RaftError.NONE, 1, 1, true), (short) 3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Round trips {@code message} at every supported version and expects it back unchanged. */
    private void check(RaftMessage message) {
        check(message, (m, v) -> m);
    }

    private void checkFrom(short oldest, RaftMessage message) {
        ApiKeys api = RaftApis.apiKeyOf(message);
        for (short v = oldest; v <= RaftApis.latestVersion(api); v++) {
            assertRoundTrip(message, v, message);
        }
    }

    private void check(RaftMessage message, BiFunction<RaftMessage, Short, RaftMessage> expectedAt) {
        ApiKeys api = RaftApis.apiKeyOf(message);
        for (short v = RaftApis.oldestVersion(api); v <= RaftApis.latestVersion(api); v++) {
            assertRoundTrip(message, v, expectedAt.apply(message, v));
        }
    }

    private void assertRoundTrip(RaftMessage message, short version, RaftMessage expected) {
        ApiMessage sent = mapping.toKafka(message, version);
        ApiMessage received = reread(sent, message instanceof RaftRequest, version);
        RaftMessage back = mapping.fromKafka(received, version);
        assertThat(back)
                .as("%s at v%d", message.getClass().getSimpleName(), version)
                .usingRecursiveComparison()
                .isEqualTo(expected);
    }

    /** Serialises as a Kafka peer would and reads the bytes back into a fresh generated message. */
    static ApiMessage reread(ApiMessage sent, boolean request, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(sent.size(cache, version));
        sent.write(new ByteBufferAccessor(buffer), cache, version);
        assertThat(buffer.hasRemaining())
                .as("size() matched what write() wrote")
                .isFalse();
        buffer.flip();
        ApiKeys api = ApiKeys.forId(sent.apiKey());
        ApiMessage fresh = request ? api.messageType.newRequest() : api.messageType.newResponse();
        fresh.read(new ByteBufferAccessor(buffer), version);
        return fresh;
    }

    private static VoteRequest withVoter(VoteRequest r, int voterId) {
        return new VoteRequest(
                r.clusterId(),
                voterId,
                r.replicaEpoch(),
                r.replicaId(),
                r.lastOffsetEpoch(),
                r.lastOffset(),
                r.preVote());
    }

    private static FetchRequest withMaxEntries(FetchRequest r) {
        return new FetchRequest(
                r.clusterId(),
                r.replicaId(),
                r.currentLeaderEpoch(),
                r.fetchOffset(),
                r.lastFetchedEpoch(),
                LIMITS.maxFetchEntries(),
                r.maxWaitMs());
    }

    private static DescribeQuorumResponse withoutTimestamps(DescribeQuorumResponse r) {
        return new DescribeQuorumResponse(
                r.error(),
                r.leaderId(),
                r.leaderEpoch(),
                r.highWatermark(),
                r.currentVoters().stream()
                        .map(p -> new ReplicaProgress(p.replicaId(), p.logEndOffset(), -1, -1))
                        .toList(),
                r.observers().stream()
                        .map(p -> new ReplicaProgress(p.replicaId(), p.logEndOffset(), -1, -1))
                        .toList());
    }

    private static RaftMessage noLeader(RaftMessage m) {
        if (m instanceof AddVoterResponse r) {
            return new AddVoterResponse(r.error(), r.errorMessage(), -1, -1);
        }
        RemoveVoterResponse r = (RemoveVoterResponse) m;
        return new RemoveVoterResponse(r.error(), r.errorMessage(), -1, -1);
    }

    /** Entries of three epochs: data runs, a leader change and a voter set between them. */
    static List<LogEntry> entries() {
        List<LogEntry> out = new ArrayList<>();
        long offset = 100;
        out.add(new LogEntry(offset++, 6, EntryType.DATA, "a".getBytes(StandardCharsets.UTF_8)));
        out.add(new LogEntry(offset++, 6, EntryType.DATA, new byte[0]));
        out.add(new LogEntry(
                offset++,
                7,
                EntryType.LEADER_CHANGE,
                ByteBuffer.allocate(4).putInt(1).array()));
        out.add(new LogEntry(offset++, 7, EntryType.DATA, bytes(300)));
        out.add(new LogEntry(offset++, 7, EntryType.VOTERS, new VoterSet(Set.of(1, 2, 3)).encode()));
        out.add(new LogEntry(offset++, 7, EntryType.DATA, "b".getBytes(StandardCharsets.UTF_8)));
        out.add(new LogEntry(
                offset++,
                8,
                EntryType.LEADER_CHANGE,
                ByteBuffer.allocate(4).putInt(3).array()));
        out.add(new LogEntry(offset, 8, EntryType.DATA, "c".getBytes(StandardCharsets.UTF_8)));
        return out;
    }

    static byte[] bytes(int count) {
        byte[] out = new byte[count];
        for (int i = 0; i < count; i++) {
            out[i] = (byte) (i * 31 + 7);
        }
        return out;
    }
}
