package io.varve.broker.observe;

import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.BrokerLifecycle;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.FetchPurgatory;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.txn.TransactionCoordinatorRuntime;
import io.varve.coordinator.group.GroupCoordinatorShard.ListedGroup;
import io.varve.coordinator.txn.TxnApi;
import io.varve.http.view.BrokerView;
import io.varve.http.view.ClusterView;
import io.varve.http.view.CoordinatorView;
import io.varve.http.view.GroupLag;
import io.varve.http.view.PartitionView;
import io.varve.http.view.Readiness;
import io.varve.raft.MetadataRaft;
import io.varve.storage.LogManager;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.tiered.manager.RemoteLogManager;
import io.varve.tiered.manager.UploadLag;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The broker as the HTTP listener sees it. Every method reads the current state; the coordinators' state is asked
 * for through their runtimes (events on their threads), so nothing here touches a shard directly.
 */
public final class NodeView implements BrokerView {
    /** A metadata image this many offsets behind the log's high watermark still counts as caught up. */
    static final long CAUGHT_UP_SLACK_OFFSETS = 100;
    /** Offset of the base timestamp in a v2 record batch header. */
    private static final int BASE_TIMESTAMP_OFFSET = 27;

    private final int nodeId;
    private final String clusterId;
    private final boolean controllerRole;
    private final MetadataCache metadata;
    private final MetadataRaft raft;
    private final LogManager logs;
    private final ReplicaManager replicas;
    private final FetchPurgatory fetchPurgatory;
    private volatile io.varve.http.view.ConsoleAuthorization consoleAuthorization =
            io.varve.http.view.ConsoleAuthorization.ALLOW_ALL;
    private final GroupCoordinatorRuntime groups;
    private final TransactionCoordinatorRuntime transactions;
    private final RemoteLogManager remote;
    private final Supplier<BrokerLifecycle> lifecycle;
    private final LongSupplier clockMs;

    public NodeView(
            int nodeId,
            String clusterId,
            boolean controllerRole,
            MetadataCache metadata,
            MetadataRaft raft,
            LogManager logs,
            ReplicaManager replicas,
            GroupCoordinatorRuntime groups,
            TransactionCoordinatorRuntime transactions,
            RemoteLogManager remote,
            Supplier<BrokerLifecycle> lifecycle,
            LongSupplier clockMs) {
        this.nodeId = nodeId;
        this.clusterId = clusterId;
        this.controllerRole = controllerRole;
        this.metadata = metadata;
        this.raft = raft;
        this.logs = logs;
        this.replicas = replicas;
        this.fetchPurgatory = replicas.fetchPurgatory();
        this.groups = groups;
        this.transactions = transactions;
        this.remote = remote;
        this.lifecycle = lifecycle;
        this.clockMs = clockMs;
    }

    @Override
    public int nodeId() {
        return nodeId;
    }

    @Override
    public String clusterId() {
        return clusterId;
    }

    @Override
    public List<PartitionView> partitions() {
        MetadataSnapshot snapshot = metadata.snapshot();
        List<PartitionView> out = new ArrayList<>();
        for (PartitionLog log : logs.openLogs()) {
            TopicInfo topic = snapshot.topicsByName().get(log.topicPartition().topic());
            PartitionInfo p = topic == null
                    ? null
                    : topic.partitions().get(log.topicPartition().partition());
            if (p == null) {
                continue; // being deleted
            }
            long remoteBytes = 0;
            UploadLag lag = UploadLag.NONE;
            if (remote != null && log.config().remoteStorageEnable()) {
                for (RemoteSegmentMetadata s :
                        remote.copiedSegments(new TopicIdPartition(topic.id(), log.topicPartition()))) {
                    remoteBytes += s.segmentSizeBytes();
                }
                lag = remote.uploadLag(log.topicPartition());
            }
            out.add(new PartitionView(
                    topic.name(),
                    p.partition(),
                    p.leader() == nodeId,
                    p.replicas().length,
                    p.isr().length,
                    minInSyncReplicas(topic),
                    log.sizeBytes(),
                    log.logStartOffset(),
                    log.logEndOffset(),
                    log.highWatermark(),
                    log.segmentCount(),
                    remoteBytes,
                    lag.bytes(),
                    lag.segments()));
        }
        return out;
    }

    private static int minInSyncReplicas(TopicInfo topic) {
        String v = topic.configs().get("min.insync.replicas");
        try {
            return v == null ? 1 : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    @Override
    public ClusterView cluster() {
        MetadataSnapshot snapshot = metadata.snapshot();
        int partitions = 0;
        int offline = 0;
        for (TopicInfo t : snapshot.topics()) {
            for (PartitionInfo p : t.partitions().values()) {
                partitions++;
                offline += p.leader() < 0 ? 1 : 0;
            }
        }
        boolean active = controllerRole && raft.leaderId() == nodeId;
        return new ClusterView(
                active,
                snapshot.topics().size(),
                partitions,
                offline,
                snapshot.brokers().size(),
                0,
                snapshot.offset());
    }

    @Override
    public CompletableFuture<List<GroupLag>> consumerLag() {
        return groups.runOnAll(shard -> shard.listGroups(Set.of(), Set.of())).thenCompose(shards -> {
            List<CompletableFuture<List<GroupLag>>> perGroup = new ArrayList<>();
            for (List<ListedGroup> listed : shards) {
                for (ListedGroup g : listed) {
                    perGroup.add(groups.lag(g.groupId()).thenApply(lags -> {
                        List<GroupLag> out = new ArrayList<>();
                        for (GroupCoordinatorRuntime.PartitionLag l : lags) {
                            out.add(new GroupLag(
                                    g.groupId(),
                                    l.partition().topic(),
                                    l.partition().partition(),
                                    l.committedOffset(),
                                    l.logEndOffset(),
                                    l.lag(),
                                    l.lag() > 0 ? lagSeconds(l) : 0));
                        }
                        return out;
                    }));
                }
            }
            return CompletableFuture.allOf(perGroup.toArray(new CompletableFuture<?>[0]))
                    .thenApply(v ->
                            perGroup.stream().flatMap(f -> f.join().stream()).toList());
        });
    }

    /**
     * The age of the first record the group has not consumed: now minus the base timestamp of the batch holding the
     * committed offset (its first record's time). An estimate: a batch's records share its base timestamp here, and
     * an offset only remote storage holds is estimated from the oldest local batch.
     */
    private double lagSeconds(GroupCoordinatorRuntime.PartitionLag l) {
        try {
            PartitionLog log = replicas.leaderLog(metadata.snapshot(), l.partition());
            long offset = Math.max(l.committedOffset(), log.localLogStartOffset());
            LogReadResult read = log.read(offset, 1, log.highWatermark(), true);
            ByteBuffer records = read.records();
            if (records.remaining() < BASE_TIMESTAMP_OFFSET + 8) {
                return 0;
            }
            long firstTimestampMs = records.getLong(records.position() + BASE_TIMESTAMP_OFFSET);
            return Math.max(0, clockMs.getAsLong() - firstTimestampMs) / 1000.0;
        } catch (RuntimeException e) {
            return 0; // the log moved or is not led here any more: no estimate this scrape
        }
    }

    @Override
    public CoordinatorView coordinators() {
        Map<String, Integer> groupStates = new TreeMap<>();
        int groupShards = 0;
        Map<String, Integer> txnStates = new TreeMap<>();
        for (io.varve.coordinator.txn.TxnState state : io.varve.coordinator.txn.TxnState.values()) {
            txnStates.put(state.name(), 0); // every state has a series, so a dashboard sees zeros, not gaps
        }
        int txnShards = 0;
        try {
            List<List<ListedGroup>> shards = groups.runOnAll(shard -> shard.listGroups(Set.of(), Set.of()))
                    .get(2, java.util.concurrent.TimeUnit.SECONDS);
            groupShards = shards.size();
            for (List<ListedGroup> listed : shards) {
                for (ListedGroup g : listed) {
                    groupStates.merge(g.state(), 1, Integer::sum);
                }
            }
            List<TxnApi.ListResponse> txns = transactions
                    .runOnAll(shard -> shard.list(TxnApi.ListFilter.all()))
                    .get(2, java.util.concurrent.TimeUnit.SECONDS);
            txnShards = txns.size();
            for (TxnApi.ListResponse r : txns) {
                for (TxnApi.ListedTxn t : r.transactions()) {
                    txnStates.merge(t.state().name(), 1, Integer::sum);
                }
            }
        } catch (Exception e) {
            // a shard loading or moving: this scrape shows what was gathered
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return new CoordinatorView(groupStates, groupShards, txnStates, txnShards);
    }

    /** The ACL check of the console's requests; set before the listener starts. */
    public void authorizeConsoleWith(io.varve.http.view.ConsoleAuthorization check) {
        this.consoleAuthorization = check;
    }

    @Override
    public io.varve.http.view.ConsoleAuthorization authorization() {
        return consoleAuthorization;
    }

    @Override
    public Map<String, Integer> purgatorySizes() {
        return Map.of(
                "Fetch",
                fetchPurgatory.size(),
                "Produce",
                replicas.producePurgatory().waitingCount());
    }

    @Override
    public Map<String, Long> tieredCounters() {
        if (remote == null) {
            return Map.of();
        }
        RemoteLogManager.Stats s = remote.stats();
        return Map.of(
                "bytesCopied", s.bytesCopied(),
                "segmentsCopied", s.segmentsCopied(),
                "segmentsDeleted", s.segmentsDeleted(),
                "failedRuns", s.failedRuns());
    }

    @Override
    public Readiness readiness() {
        BrokerLifecycle l = lifecycle.get();
        boolean registered = l != null && l.brokerEpoch() >= 0 && !l.fenced();
        long applied = metadata.snapshot().offset();
        long end = raft.highWatermark();
        boolean caughtUp = applied >= 0 && applied + 1 + CAUGHT_UP_SLACK_OFFSETS >= end;
        int offline = replicas.unavailableLogCount();
        MetadataSnapshot snapshot = metadata.snapshot();
        for (PartitionLog log : logs.allLogs()) {
            if (log.isOffline()) {
                TopicInfo t = snapshot.topicsByName().get(log.topicPartition().topic());
                PartitionInfo p = t == null
                        ? null
                        : t.partitions().get(log.topicPartition().partition());
                offline += p != null && p.leader() == nodeId ? 1 : 0;
            }
        }
        return new Readiness(registered, caughtUp, offline);
    }
}
