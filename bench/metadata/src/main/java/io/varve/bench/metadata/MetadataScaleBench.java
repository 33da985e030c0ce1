package io.varve.bench.metadata;

import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.SocketServer;
import io.varve.broker.raft.KafkaRaftTransport;
import io.varve.broker.raft.RaftWireMapping;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.ControllerConfig;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.metadata.record.VersionRange;
import io.varve.metadata.snapshot.MetadataSnapshotFormat;
import io.varve.metadata.snapshot.SnapshotGenerator;
import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import io.varve.raft.node.MetadataRaftRuntime;
import io.varve.raft.node.RaftRuntime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * A three-voter metadata quorum holding {@code topics x partitions} partitions, each voter a real {@link
 * MetadataRaftRuntime} with its {@link MetadataLoader}, {@link QuorumController} and {@link SnapshotGenerator}, its
 * own directory, talking Kafka's Raft requests over {@link KafkaRaftTransport} on loopback sockets. No broker
 * process: three brokers are registered as records and partitions placed on them (replication factor 3); no
 * partition log exists. Measures what issue 12 asks: snapshot size on disk, load time of a voter restarted on its
 * snapshot, heap per partition after GC, and how long a standby takes from its election to its first committed
 * write.
 *
 * <pre>
 *   java -Xmx8g -cp ... io.varve.bench.metadata.MetadataScaleBench DIR [topics] [partitionsPerTopic] [snapshotBytes]
 * </pre>
 */
public final class MetadataScaleBench {
    private static final int[] IDS = {1, 2, 3};
    private static final String CLUSTER_ID = "metadata-scale-bench";
    private static final long START_TIMEOUT_MS = 120_000;
    /** {@code metadata.log.max.record.bytes.between.snapshots}: Kafka's 20 MiB unless the run names another. */
    private static long snapshotBytes = 20L * 1024 * 1024;

    private MetadataScaleBench() {}

    /** One voter: its Raft log, loader, controller and snapshot generator, and its controller listener. */
    private static final class Voter implements AutoCloseable {
        final int id;
        final MetadataRaftRuntime raft;
        final MetadataLoader loader = new MetadataLoader();
        final SnapshotGenerator snapshots;
        final SocketServer network;
        final LeaderWatch leaderWatch = new LeaderWatch();
        QuorumController controller;

        Voter(int id, Path dir, Map<Integer, InetSocketAddress> voters) throws InterruptedException {
            this.id = id;
            KafkaRaftTransport transport = new KafkaRaftTransport(
                    id,
                    new RaftWireMapping(
                            id,
                            RaftWireMapping.Limits.of(
                                    MetadataRaftRuntime.coreConfig(id, CLUSTER_ID, voters.keySet()))),
                    voters::get,
                    KafkaRaftTransport.Settings.defaults(),
                    RaftRuntime.monotonicClockMs());
            network = new SocketServer(new SocketServer.Settings(104857600, 600000L, 1, 102400, 102400));
            network.start(
                    List.of(new ListenerConfig("CONTROLLER", "127.0.0.1", voters.get(id).getPort(), "PLAINTEXT")),
                    transport.dispatcher());
            raft = new MetadataRaftRuntime(new MetadataRaftRuntime.Settings(
                    id, CLUSTER_ID, voters.keySet(), dir, transport, START_TIMEOUT_MS,
                    io.varve.raft.node.QuorumTimeouts.KAFKA_DEFAULTS, 1073741824));
            snapshots = new SnapshotGenerator(
                    snapshotBytes, 3_600_000L, raft::snapshot, () -> System.nanoTime() / 1_000_000,
                    "metadata-snapshot-" + id);
            loader.attachSnapshotGenerator(snapshots);
            raft.register(loader);
            raft.register(leaderWatch);
        }

        void start() {
            raft.start();
            controller = new QuorumController(new ControllerConfig(1, (short) 3), CLUSTER_ID, raft, loader);
        }

        @Override
        public void close() {
            if (controller != null) {
                controller.close();
            }
            snapshots.close();
            raft.close();
            network.close();
        }
    }

    /** Notes when this replica saw itself elected, on the Raft thread. */
    private static final class LeaderWatch implements RaftListener {
        volatile int self = -1;
        volatile long electedAtNanos;
        final CountDownLatch elected = new CountDownLatch(1);

        @Override
        public void handleCommit(List<RaftRecord> records) {}

        @Override
        public void handleSnapshot(long endOffset, byte[] snapshot) {}

        @Override
        public void handleLeaderChange(int leaderId, int epoch) {
            if (leaderId == self && elected.getCount() > 0) {
                electedAtNanos = System.nanoTime();
                elected.countDown();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : "bench/work/metadata-scale");
        int topics = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int partitionsPerTopic = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        if (args.length > 3) {
            snapshotBytes = Long.parseLong(args[3]);
        }
        long total = (long) topics * partitionsPerTopic;
        deleteRecursively(root);
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        for (int id : IDS) {
            addresses.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        }
        long heapBefore = usedHeapAfterGc();
        Map<Integer, Voter> voters = new HashMap<>();
        List<Thread> starters = new ArrayList<>();
        for (int id : IDS) {
            Voter voter = new Voter(id, root.resolve("voter-" + id), addresses);
            voter.leaderWatch.self = id;
            voters.put(id, voter);
            Thread starter = new Thread(voter::start, "start-" + id);
            starter.start();
            starters.add(starter);
        }
        for (Thread starter : starters) {
            starter.join();
        }
        Voter leader = voters.get(awaitLeader(voters));
        System.out.printf("quorum up, leader %d; loading %,d topics x %,d partitions (RF 3)%n",
                leader.id, topics, partitionsPerTopic);

        long loadStart = System.nanoTime();
        List<byte[]> brokers = new ArrayList<>();
        for (int b = 1; b <= 3; b++) {
            brokers.add(MetadataRecordSerde.serialize(new RegisterBrokerRecord(
                    b,
                    Uuid.randomUuid(),
                    b,
                    List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9092 + b, "PLAINTEXT")),
                    null,
                    Map.of("metadata.version", new VersionRange((short) 1, (short) 27)),
                    false,
                    false)));
        }
        leader.raft.append(brokers).get(60, TimeUnit.SECONDS);
        long lastOffset = 0;
        for (int t = 0; t < topics; t++) {
            Uuid topicId = Uuid.randomUuid();
            List<byte[]> batch = new ArrayList<>(partitionsPerTopic + 1);
            batch.add(MetadataRecordSerde.serialize(new TopicRecord("topic-" + t, topicId)));
            for (int p = 0; p < partitionsPerTopic; p++) {
                int first = 1 + (t + p) % 3;
                int[] replicas = {first, 1 + first % 3, 1 + (first + 1) % 3};
                MetadataRecord partition = new PartitionRecord(topicId, p, replicas, replicas, first, 0, 0);
                batch.add(MetadataRecordSerde.serialize(partition));
            }
            lastOffset = leader.raft.append(batch).get(60, TimeUnit.SECONDS);
        }
        long committedOffset = lastOffset;
        for (Voter voter : voters.values()) {
            awaitUntil(() -> voter.loader.image().offset() >= committedOffset, 300_000, "voter " + voter.id
                    + " to apply the load");
        }
        double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
        System.out.printf("loaded %,d partitions in %.1f s (%.0f partitions/s, all three voters applied)%n",
                total, loadSeconds, total / loadSeconds);

        // A snapshot of the whole image on every voter (the generator's last one may predate the end of the load),
        // timed: serializing off the Raft thread, then the store's write and fsync on it.
        for (Voter voter : voters.values()) {
            MetadataImage image = voter.loader.image();
            long serializeStart = System.nanoTime();
            byte[] bytes = MetadataSnapshotFormat.write(image);
            long serialized = System.nanoTime();
            try {
                voter.raft.snapshot(image.offset() + 1, bytes).get(120, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                // the generator already stored one at this offset: its size is what we report
            }
            System.out.printf("voter %d snapshot of %,d partitions: serialize %.0f ms, store %.0f ms%n",
                    voter.id, image.topics().totalPartitions(), (serialized - serializeStart) / 1e6,
                    (System.nanoTime() - serialized) / 1e6);
        }
        long heapAfter = usedHeapAfterGc();
        double bytesPerPartition = (heapAfter - heapBefore) / (3.0 * total);
        System.out.printf("heap after GC: %,d MiB for 3 voters' images (%.0f bytes per partition per voter)%n",
                (heapAfter - heapBefore) >> 20, bytesPerPartition);

        // Restart a follower on its snapshot (plus the tail after it).
        Voter follower = voters.values().stream().filter(v -> v != leader).findFirst().orElseThrow();
        long snapshotBytes = newestSnapshotBytes(root.resolve("voter-" + follower.id));
        System.out.printf("snapshot on disk: %,d bytes (%.1f MiB, %.1f bytes per partition)%n",
                snapshotBytes, snapshotBytes / 1048576.0, snapshotBytes / (double) total);
        follower.close();
        Voter restarted = new Voter(follower.id, root.resolve("voter-" + follower.id), addresses);
        restarted.leaderWatch.self = follower.id;
        long restartStart = System.nanoTime();
        restarted.start();
        double restartMs = (System.nanoTime() - restartStart) / 1e6;
        voters.put(restarted.id, restarted);
        System.out.printf(
                "voter %d restarted on its snapshot: start() returned in %.0f ms holding %,d partitions%n",
                restarted.id, restartMs, restarted.loader.image().topics().totalPartitions());

        // Standby takeover: close the leader (it resigns, naming successors), time election -> first committed write.
        long closeStart = System.nanoTime();
        leader.close();
        voters.remove(leader.id);
        int newLeader = awaitLeader(voters);
        Voter standby = voters.get(newLeader);
        standby.leaderWatch.elected.await(60, TimeUnit.SECONDS);
        long electedAt = standby.leaderWatch.electedAtNanos;
        long committedAt = 0;
        while (committedAt == 0) {
            try {
                standby.controller.allocateProducerIds(1, 1000).get(10, TimeUnit.SECONDS);
                committedAt = System.nanoTime();
            } catch (Exception e) {
                Thread.sleep(1); // not leading in its controller's eyes yet: try again at once
            }
        }
        System.out.printf(
                "standby %d: leader closed -> elected %.0f ms, elected -> first committed write %.0f ms"
                        + " (its image holds %,d partitions)%n",
                newLeader,
                (electedAt - closeStart) / 1e6,
                (committedAt - electedAt) / 1e6,
                standby.loader.image().topics().totalPartitions());
        for (Voter voter : voters.values()) {
            voter.close();
        }
    }

    private static int awaitLeader(Map<Integer, Voter> voters) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            for (Voter voter : voters.values()) {
                if (voter.raft.leaderId() == voter.id) {
                    return voter.id;
                }
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("no leader within 120 s");
    }

    private interface Condition {
        boolean holds();
    }

    private static void awaitUntil(Condition condition, long timeoutMs, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static long newestSnapshotBytes(Path voterDir) throws IOException {
        try (Stream<Path> files = Files.list(MetadataRaftRuntime.storeDir(voterDir))) {
            Path newest = files.filter(f -> f.toString().endsWith(".checkpoint"))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElseThrow();
            return Files.size(newest);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.delete(p);
            }
        }
    }
}
