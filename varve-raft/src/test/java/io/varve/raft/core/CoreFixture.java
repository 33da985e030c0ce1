package io.varve.raft.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import io.varve.raft.core.runtime.MemoryQuorumStateStore;
import io.varve.raft.core.runtime.MemoryRaftLog;
import io.varve.raft.core.runtime.MemorySnapshotStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** One replica under test with in-memory seams and a hand-driven clock; records what it sends and commits. */
final class CoreFixture {
    static final String CLUSTER = "test-cluster";

    final RaftCoreConfig config;
    final MemoryRaftLog log = new MemoryRaftLog();
    final MemoryQuorumStateStore store = new MemoryQuorumStateStore();
    final MemorySnapshotStore snapshots = new MemorySnapshotStore();
    final List<OutboundMessage> sent = new ArrayList<>();
    final List<LogEntry> committed = new ArrayList<>();
    RaftCore core;
    long nowMs;

    private CoreFixture(RaftCoreConfig config) {
        this.config = config;
    }

    static CoreFixture replica(int id, Set<Integer> voters) {
        return new CoreFixture(RaftCoreConfig.defaults(id, CLUSTER, voters));
    }

    static CoreFixture replica(RaftCoreConfig config) {
        return new CoreFixture(config);
    }

    CoreFixture start() {
        return start(VoteRule.RAFT);
    }

    CoreFixture start(VoteRule rule) {
        core = new RaftCore(config, log, store, snapshots, new Random(42), rule, nowMs);
        return this;
    }

    /** Appends entries of the given epochs directly to the log, as if replicated earlier. */
    CoreFixture withLog(int... epochs) {
        long offset = log.endOffset();
        for (int epoch : epochs) {
            log.append(List.of(new LogEntry(offset++, epoch, EntryType.DATA, bytes("e" + offset))));
        }
        log.flush();
        return this;
    }

    RaftOutput deliver(int from, long correlationId, RaftMessage message) {
        return record(core.handle(new InboundMessage(from, correlationId, message), nowMs));
    }

    /** Delivers a response to the last request of that kind sent to {@code from}. */
    RaftOutput answer(int from, Class<? extends RaftMessage> requestKind, RaftMessage response) {
        return deliver(from, lastSent(requestKind, from).correlationId(), response);
    }

    RaftOutput advance(long ms) {
        nowMs += ms;
        return record(core.poll(nowMs));
    }

    RaftOutput resign() {
        return record(core.resign(nowMs));
    }

    private RaftOutput record(RaftOutput output) {
        sent.addAll(output.messages());
        committed.addAll(output.committed());
        return output;
    }

    OutboundMessage lastSent(Class<? extends RaftMessage> kind, int to) {
        for (int i = sent.size() - 1; i >= 0; i--) {
            OutboundMessage message = sent.get(i);
            if (message.destinationId() == to && kind.isInstance(message.message())) {
                return message;
            }
        }
        throw new AssertionError("nothing of " + kind.getSimpleName() + " sent to " + to + ": " + sent);
    }

    <T extends RaftMessage> T lastMessage(Class<T> kind, int to) {
        return kind.cast(lastSent(kind, to).message());
    }

    boolean hasSent(Class<? extends RaftMessage> kind, int to) {
        return sent.stream().anyMatch(m -> m.destinationId() == to && kind.isInstance(m.message()));
    }

    /** Runs this voter's election to the end with {@code granter}'s pre-vote and vote. */
    CoreFixture electLeader(int granter) {
        advance(2 * config.electionTimeoutMs());
        assertThat(core.role()).isEqualTo(Role.PROSPECTIVE);
        answer(granter, VoteRequest.class, new VoteResponse(RaftError.NONE, -1, core.epoch(), true));
        assertThat(core.role()).isEqualTo(Role.CANDIDATE);
        answer(granter, VoteRequest.class, new VoteResponse(RaftError.NONE, -1, core.epoch(), true));
        assertThat(core.role()).isEqualTo(Role.LEADER);
        return this;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
