package io.varve.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.raft.core.RaftCoreConfig;
import io.varve.raft.core.Role;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.store.FileQuorumStateStore;
import io.varve.raft.core.store.FileRaftLog;
import io.varve.raft.core.store.FileSnapshotStore;
import io.varve.raft.node.CommitListener;
import io.varve.raft.node.RaftRuntime;
import io.varve.raft.node.RaftRuntimeConfig;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three controllers, each a {@link RaftRuntime} on file stores behind the broker's {@link SocketServer} on a
 * loopback controller listener, talking Kafka's Raft requests over TCP.
 */
class KafkaRaftTransportTest {
    private static final Set<Integer> VOTERS = Set.of(0, 1, 2);
    private static final Duration BOUND = Duration.ofSeconds(30);

    @TempDir
    Path root;

    private final Map<Integer, InetSocketAddress> endpoints = new ConcurrentHashMap<>();
    private final Map<Integer, Controller> controllers = new HashMap<>();

    @AfterEach
    void closeAll() {
        controllers.values().forEach(Controller::close);
    }

    @Test
    void threeControllersElectALeaderAndCommitOverTcpAndReElectWhenItCloses() throws Exception {
        for (int id : VOTERS) {
            controllers.put(id, new Controller(id));
        }
        controllers.values().forEach(c -> c.runtime.start());
        Controller leader = awaitLeader();
        for (int i = 0; i < 20; i++) {
            leader.runtime
                    .propose(List.of(("tcp-" + i).getBytes(StandardCharsets.UTF_8)))
                    .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        await().atMost(BOUND).until(() -> controllers.values().stream()
                .allMatch(c -> c.data().size() == 20));
        controllers.remove(leader.id).close();
        Controller next = awaitLeader();
        long offset = next.runtime
                .propose(List.of("after".getBytes(StandardCharsets.UTF_8)))
                .get(BOUND.toSeconds(), TimeUnit.SECONDS);
        await().atMost(BOUND).until(() -> controllers.values().stream()
                .allMatch(c -> c.data().contains("after")));
        assertThat(offset).isGreaterThan(20);
        for (Controller controller : controllers.values()) {
            assertThat(controller.data()).hasSize(21).endsWith("after");
        }
    }

    @Test
    void anAdminsDescribeQuorumOverTheSocketNamesTheLeaderAndItsVoters() throws Exception {
        for (int id : VOTERS) {
            controllers.put(id, new Controller(id));
        }
        controllers.values().forEach(c -> c.runtime.start());
        Controller leader = awaitLeader();
        InetSocketAddress address = endpoints.get(leader.id);
        short version = 2;
        DescribeQuorumResponseData answer;
        try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
            DescribeQuorumRequestData request = new DescribeQuorumRequestData();
            request.topics()
                    .add(new DescribeQuorumRequestData.TopicData()
                            .setTopicName("__cluster_metadata")
                            .setPartitions(
                                    List.of(new DescribeQuorumRequestData.PartitionData().setPartitionIndex(0))));
            RequestHeaderData header = new RequestHeaderData()
                    .setRequestApiKey(ApiKeys.DESCRIBE_QUORUM.id)
                    .setRequestApiVersion(version)
                    .setCorrelationId(77)
                    .setClientId("admin");
            short headerVersion = ApiKeys.DESCRIBE_QUORUM.requestHeaderVersion(version);
            ObjectSerializationCache cache = new ObjectSerializationCache();
            int size = header.size(cache, headerVersion) + request.size(cache, version);
            ByteBuffer frame = ByteBuffer.allocate(4 + size).putInt(size);
            header.write(new ByteBufferAccessor(frame), cache, headerVersion);
            request.write(new ByteBufferAccessor(frame), cache, version);
            OutputStream out = socket.getOutputStream();
            out.write(frame.array());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(response));
            ResponseHeaderData responseHeader =
                    new ResponseHeaderData(reader, ApiKeys.DESCRIBE_QUORUM.responseHeaderVersion(version));
            assertThat(responseHeader.correlationId()).isEqualTo(77);
            answer = new DescribeQuorumResponseData(reader, version);
        }
        DescribeQuorumResponseData.PartitionData partition =
                answer.topics().get(0).partitions().get(0);
        assertThat(partition.errorCode()).isZero();
        assertThat(partition.leaderId()).isEqualTo(leader.id);
        assertThat(partition.currentVoters())
                .extracting(DescribeQuorumResponseData.ReplicaState::replicaId)
                .containsExactlyInAnyOrder(0, 1, 2);
    }

    private Controller awaitLeader() {
        await().atMost(BOUND).until(() -> leaderOrNull() != null);
        return leaderOrNull();
    }

    private Controller leaderOrNull() {
        List<Controller> leaders = controllers.values().stream()
                .filter(c -> c.runtime.status().role() == Role.LEADER)
                .toList();
        if (leaders.size() != 1) {
            return null;
        }
        Controller leader = leaders.get(0);
        long following = controllers.values().stream()
                .filter(c -> c.runtime.status().leaderId() == leader.id
                        && c.runtime.status().epoch() == leader.runtime.status().epoch())
                .count();
        return following >= 2 ? leader : null;
    }

    /** One controller: a socket server on the controller listener, a transport, a runtime, file stores. */
    private final class Controller implements CommitListener {
        final int id;
        final SocketServer server;
        final FileRaftLog log;
        final RaftRuntime runtime;
        final List<LogEntry> committed = new CopyOnWriteArrayList<>();

        Controller(int id) throws InterruptedException {
            this.id = id;
            Path dir = root.resolve("controller-" + id);
            RaftCoreConfig core =
                    new RaftCoreConfig(id, "tcp-cluster", VOTERS, 500, 500, 1000, 800, 20, 200, 64, 4096, 256);
            KafkaRaftTransport transport = new KafkaRaftTransport(
                    id,
                    new RaftWireMapping(id, RaftWireMapping.Limits.of(core)),
                    endpoints::get,
                    KafkaRaftTransport.Settings.defaults(),
                    RaftRuntime.monotonicClockMs());
            this.server = new SocketServer(new SocketServer.Settings(1 << 20, 60_000, 1, 0, 0));
            server.start(
                    List.of(new ListenerConfig("CONTROLLER", "127.0.0.1", 0, "PLAINTEXT")), transport.dispatcher());
            endpoints.put(id, new InetSocketAddress("127.0.0.1", server.boundPort("CONTROLLER")));
            this.log = FileRaftLog.open(dir, FileRaftLog.DEFAULT_SEGMENT_BYTES);
            this.runtime = new RaftRuntime(
                    core,
                    RaftRuntimeConfig.defaults(),
                    log,
                    new FileQuorumStateStore(dir),
                    new FileSnapshotStore(dir),
                    transport,
                    this,
                    RaftRuntime.monotonicClockMs(),
                    new Random(id));
        }

        @Override
        public void onSnapshotLoaded(SnapshotId snapshot, byte[] stateMachineBytes) {
            committed.clear();
        }

        @Override
        public void onCommitted(List<LogEntry> entries) {
            committed.addAll(entries);
        }

        List<String> data() {
            return committed.stream()
                    .filter(e -> e.type() == EntryType.DATA)
                    .map(e -> new String(e.payload(), StandardCharsets.UTF_8))
                    .toList();
        }

        void close() {
            runtime.close();
            server.close();
            log.close();
        }
    }
}
