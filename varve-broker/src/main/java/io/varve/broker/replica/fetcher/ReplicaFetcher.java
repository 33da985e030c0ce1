package io.varve.broker.replica.fetcher;

import io.varve.broker.network.client.NodeClient;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.throttle.ReplicationThrottles;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.progress.ProgressReporter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread fetching a set of partitions from one leader broker, as Kafka's replica fetcher does: a Fetch naming
 * this broker in ReplicaState, each partition from its log end with the epoch of its last batch, in a fetch session
 * with the leader (KIP-227, {@link LeaderFetchSession}: after the first request only what changed); the
 * answer is appended as it is (the leader's offsets and epochs), a diverging epoch truncates first, an offset the
 * leader no longer has restarts the log at the leader's start. A partition whose fetch fails waits out the back-off;
 * a new leader or epoch comes from the metadata image, which moves the partition to another fetcher.
 */
final class ReplicaFetcher implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);
    /** The Fetch version this broker's leaders serve (ReplicaState, topic ids, diverging epochs, v18: the high watermark it knows). */
    static final short FETCH_VERSION = 18;
    /** ListOffsets v8 introduced EARLIEST_LOCAL (KIP-405); v9 is the first without the old replica-id rules. */
    private static final short LIST_OFFSETS_VERSION = 9;
    /** ListOffsets' EARLIEST_LOCAL timestamp: the leader's local log start offset. */
    private static final long EARLIEST_LOCAL_TIMESTAMP = -4L;

    private record Fetching(Partition partition, int leaderEpoch, long notBeforeMs) {}

    private final int localId;
    private final int leaderId;
    private final ReplicaFetcherSettings settings;
    private final NodeClient client;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final LongSupplier brokerEpoch;
    private final LongSupplier clockMs;
    private final String name;
    private final java.util.function.Supplier<TieredFollowerStart> tieredStart;
    /** The follower quota, or null before it is set. */
    private final java.util.function.Supplier<ReplicationThrottles> throttles;
    /** Guarded by this object's monitor. */
    private final Map<TopicPartition, Fetching> partitions = new LinkedHashMap<>();

    /** Progress lines of partitions that are far behind; used on the fetcher's thread only. */
    private final FollowerCatchUp catchUp;

    private volatile boolean running = true;
    private volatile java.util.concurrent.CompletableFuture<ClientFrames.Response> inFlight;
    private Thread thread;
    private String lastFailure;
    /** Owned by the fetcher thread. */
    private final LeaderFetchSession session = new LeaderFetchSession();

    ReplicaFetcher(
            int localId,
            int leaderId,
            int fetcherId,
            ReplicaFetcherSettings settings,
            NodeClient client,
            IntFunction<Optional<InetSocketAddress>> addresses,
            LongSupplier brokerEpoch,
            LongSupplier clockMs,
            java.util.function.Supplier<TieredFollowerStart> tieredStart,
            java.util.function.Supplier<ReplicationThrottles> throttles) {
        this.tieredStart = tieredStart;
        this.throttles = throttles;
        this.localId = localId;
        this.leaderId = leaderId;
        this.settings = settings;
        this.client = client;
        this.addresses = addresses;
        this.brokerEpoch = brokerEpoch;
        this.clockMs = clockMs;
        this.catchUp = new FollowerCatchUp(leaderId, clockMs, ProgressReporter.DEFAULT_INTERVAL_MS, log::info);
        this.name = "varve-replica-fetcher-" + fetcherId + "-leader-" + leaderId;
    }

    void start() {
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    synchronized void add(Partition partition, int leaderEpoch) {
        partitions.put(partition.topicPartition(), new Fetching(partition, leaderEpoch, 0));
        notifyAll();
    }

    synchronized boolean remove(TopicPartition tp) {
        return partitions.remove(tp) != null;
    }

    synchronized boolean isEmpty() {
        return partitions.isEmpty();
    }

    /**
     * Stops after the current round. Never interrupts the thread: an interrupt during a log write would close the
     * segment's file channel (NIO channels are interruptible) and take the log offline. A fetch in flight is failed
     * instead, so the thread does not wait for its answer.
     */
    void shutdown() {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        java.util.concurrent.CompletableFuture<ClientFrames.Response> current = inFlight;
        if (current != null) {
            current.cancel(false);
        }
    }

    @Override
    public void run() {
        log.info("Replica fetcher {} started", name);
        while (running) {
            try {
                fetchOnce();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (RuntimeException e) {
                log.warn("Replica fetcher {} failed a round; backing off", name, e);
                backOffAll();
            }
        }
        log.info("Replica fetcher {} stopped", name);
    }

    private void fetchOnce() throws InterruptedException {
        List<Fetching> ready = unthrottled(readyPartitions());
        if (ready.isEmpty()) {
            return;
        }
        Optional<InetSocketAddress> address = addresses.apply(leaderId);
        if (address.isEmpty()) {
            failed("leader " + leaderId + " has no endpoint on the inter-broker listener in the metadata");
            backOffAll();
            return;
        }
        Map<TopicPartition, Fetching> sent = new HashMap<>();
        FetchRequestData request = request(ready, sent);
        FetchResponseData response;
        try {
            java.util.concurrent.CompletableFuture<ClientFrames.Response> sentFetch = client.send(
                    address.get(),
                    ApiKeys.FETCH,
                    FETCH_VERSION,
                    request,
                    settings.waitMaxMs() + settings.requestTimeoutMs());
            inFlight = sentFetch;
            if (!running) {
                return;
            }
            ClientFrames.Response answer =
                    sentFetch.get(settings.waitMaxMs() + settings.requestTimeoutMs() + 1_000, TimeUnit.MILLISECONDS);
            response = (FetchResponseData) answer.body();
        } catch (java.util.concurrent.CancellationException e) {
            return; // shut down
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            session.handleError();
            failed("fetching from " + address.get() + " failed: " + (e.getCause() != null ? e.getCause() : e));
            backOffAll();
            return;
        }
        if (lastFailure != null) {
            log.info("Replica fetcher {} fetches from leader {} again", name, leaderId);
            lastFailure = null;
        }
        if (!session.handleResponse(response)) {
            Errors error = Errors.forCode(response.errorCode());
            if (error == Errors.FETCH_SESSION_ID_NOT_FOUND
                    || error == Errors.INVALID_FETCH_SESSION_EPOCH
                    || error == Errors.FETCH_SESSION_TOPIC_ID_ERROR) {
                log.debug("Replica fetcher {}: leader {} answered {}; fetching in full", name, leaderId, error);
                return; // the next request is full, at once
            }
            failed("leader " + leaderId + " answered " + Errors.forCode(response.errorCode()));
            backOffAll();
            return;
        }
        Map<Uuid, String> names = new HashMap<>();
        sent.forEach((tp, f) -> names.put(f.partition().topicId(), tp.topic()));
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            String topicName = names.get(topic.topicId());
            if (topicName == null) {
                continue;
            }
            for (FetchResponseData.PartitionData p : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topicName, p.partitionIndex());
                Fetching f = sent.get(tp);
                if (f != null) {
                    handle(f, p);
                }
            }
        }
    }

    /**
     * Leaves out the partitions followed out of the ISR whose follower throttle is spent; when that leaves nothing,
     * waits until the quota allows a fetch again (at most the back-off, woken by add() or shutdown()).
     */
    private List<Fetching> unthrottled(List<Fetching> ready) throws InterruptedException {
        ReplicationThrottles quota = throttles.get();
        if (quota == null || ready.isEmpty()) {
            return ready;
        }
        List<Fetching> allowed = new ArrayList<>(ready.size());
        for (Fetching f : ready) {
            if (!outOfSyncHere(f.partition())
                    || !quota.followerMustWait(f.partition().topicPartition())) {
                allowed.add(f);
            }
        }
        if (allowed.isEmpty()) {
            synchronized (this) {
                wait(Math.max(1, Math.min(settings.backoffMs(), quota.followerWaitMs())));
            }
        }
        return allowed;
    }

    private boolean outOfSyncHere(Partition partition) {
        return !partition.isr().contains(localId);
    }

    private synchronized List<Fetching> readyPartitions() throws InterruptedException {
        long now = clockMs.getAsLong();
        List<Fetching> ready = new ArrayList<>();
        long nextMs = Long.MAX_VALUE;
        for (Fetching f : partitions.values()) {
            if (f.notBeforeMs() <= now) {
                ready.add(f);
            } else {
                nextMs = Math.min(nextMs, f.notBeforeMs());
            }
        }
        if (ready.isEmpty()) {
            long waitMs = nextMs == Long.MAX_VALUE ? settings.backoffMs() : Math.max(1, nextMs - now);
            wait(waitMs); // woken by add() or shutdown()
        }
        return ready;
    }

    private FetchRequestData request(List<Fetching> ready, Map<TopicPartition, Fetching> sent) {
        FetchRequestData request = new FetchRequestData()
                .setReplicaId(-1)
                .setReplicaState(new FetchRequestData.ReplicaState()
                        .setReplicaId(localId)
                        .setReplicaEpoch(brokerEpoch.getAsLong()))
                .setMaxWaitMs(settings.waitMaxMs())
                .setMinBytes(settings.minBytes())
                .setMaxBytes(settings.responseMaxBytes())
                .setIsolationLevel((byte) 0);
        Map<TopicPartition, LeaderFetchSession.PartitionState> next = new LinkedHashMap<>();
        for (Fetching f : ready) {
            Partition p = f.partition();
            next.put(
                    p.topicPartition(),
                    new LeaderFetchSession.PartitionState(
                            p.topicId(),
                            p.log().logEndOffset(),
                            f.leaderEpoch(),
                            p.log().latestLeaderEpoch(),
                            p.log().logStartOffset(),
                            settings.fetchMaxBytes(),
                            p.log().highWatermark()));
            sent.put(p.topicPartition(), f); // an incremental answer may carry any partition of the session
        }
        return session.build(request, next);
    }

    private void handle(Fetching f, FetchResponseData.PartitionData p) {
        synchronized (this) {
            if (partitions.get(f.partition().topicPartition()) != f) {
                return; // moved to another leader or epoch while the fetch was out
            }
        }
        try {
            apply(f, p);
        } catch (org.apache.kafka.common.errors.ApiException e) { // OffsetOverlapException included
            delay(f, "applying what leader " + leaderId + " sent failed: " + e);
        }
    }

    private void apply(Fetching f, FetchResponseData.PartitionData p) {
        Partition partition = f.partition();
        Errors error = Errors.forCode(p.errorCode());
        switch (error) {
            case NONE -> {
                if (p.divergingEpoch() != null && p.divergingEpoch().epoch() >= 0) {
                    truncateToDivergence(
                            f, p.divergingEpoch().epoch(), p.divergingEpoch().endOffset());
                    return;
                }
                ByteBuffer records = WireRecords.bytesOrNull(p.records());
                ReplicationThrottles quota = throttles.get();
                if (quota != null && records != null && outOfSyncHere(partition)) {
                    quota.followerFetched(partition.topicPartition(), records.remaining());
                }
                partition.appendAsFollower(
                        f.leaderEpoch(),
                        records == null ? ByteBuffer.allocate(0) : records,
                        p.highWatermark(),
                        p.logStartOffset());
                catchUp.fetched(partition.topicPartition(), partition.log().logEndOffset(), p.highWatermark());
            }
            case OFFSET_OUT_OF_RANGE -> {
                long leaderStart = p.logStartOffset();
                long fetchOffset = partition.log().logEndOffset();
                if (leaderStart >= 0 && fetchOffset < leaderStart) {
                    partition.truncateFullyAndStartAt(f.leaderEpoch(), leaderStart);
                } else if (p.highWatermark() >= 0 && fetchOffset > p.highWatermark()) {
                    partition.truncateTo(f.leaderEpoch(), p.highWatermark());
                } else {
                    delay(f, "leader " + leaderId + " answered " + error + " at offset " + fetchOffset);
                }
            }
            case OFFSET_MOVED_TO_TIERED_STORAGE -> startFromRemote(f);
            default -> delay(f, "leader " + leaderId + " answered " + error + " for " + partition.topicPartition());
        }
    }

    /**
     * The leader's local log starts above this replica's fetch offset and what lies below is in the remote tier: ask
     * the leader where its local log starts (ListOffsets EARLIEST_LOCAL, KIP-1005), then let the tiered layer rebuild
     * the partition from the remote tier up to there.
     */
    private void startFromRemote(Fetching f) {
        Partition partition = f.partition();
        try {
            long localStart = leaderLocalLogStart(f);
            if (localStart >= 0 && tieredStart.get().startFromRemote(partition, f.leaderEpoch(), localStart)) {
                return;
            }
            delay(
                    f,
                    "the remote tier does not reach leader " + leaderId + "'s local log start " + localStart + " of "
                            + partition.topicPartition() + " yet");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn(
                    "Replica fetcher {}: building {} from the remote tier failed; retrying",
                    name,
                    partition.topicPartition(),
                    e);
            delay(f, "building from the remote tier failed: " + e);
        }
    }

    private long leaderLocalLogStart(Fetching f)
            throws InterruptedException, java.util.concurrent.ExecutionException,
                    java.util.concurrent.TimeoutException {
        TopicPartition tp = f.partition().topicPartition();
        Optional<InetSocketAddress> address = addresses.apply(leaderId);
        if (address.isEmpty()) {
            return -1;
        }
        org.apache.kafka.common.message.ListOffsetsRequestData request =
                new org.apache.kafka.common.message.ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setIsolationLevel((byte) 0);
        request.topics()
                .add(new org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic()
                        .setName(tp.topic())
                        .setPartitions(List.of(
                                new org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(tp.partition())
                                        .setCurrentLeaderEpoch(f.leaderEpoch())
                                        .setTimestamp(EARLIEST_LOCAL_TIMESTAMP))));
        ClientFrames.Response answer = client.send(
                        address.get(), ApiKeys.LIST_OFFSETS, LIST_OFFSETS_VERSION, request, settings.requestTimeoutMs())
                .get(settings.requestTimeoutMs() + 1_000L, TimeUnit.MILLISECONDS);
        var response = (org.apache.kafka.common.message.ListOffsetsResponseData) answer.body();
        for (var topic : response.topics()) {
            for (var p : topic.partitions()) {
                if (topic.name().equals(tp.topic()) && p.partitionIndex() == tp.partition()) {
                    return p.errorCode() == Errors.NONE.code() ? p.offset() : -1;
                }
            }
        }
        return -1;
    }

    /**
     * Truncates to where the follower's history stops matching the leader's: the smaller of where the leader says
     * the epoch ended and where it ends locally.
     */
    private void truncateToDivergence(Fetching f, int epoch, long leaderEndOffset) {
        Partition partition = f.partition();
        EpochEndOffset local = partition.endOffsetForEpoch(epoch);
        long offset = local.endOffset() < 0 ? leaderEndOffset : Math.min(leaderEndOffset, local.endOffset());
        partition.truncateTo(f.leaderEpoch(), offset);
    }

    private void delay(Fetching f, String why) {
        log.debug("Replica fetcher {}: {}; fetching it again after {} ms", name, why, settings.backoffMs());
        synchronized (this) {
            partitions.computeIfPresent(
                    f.partition().topicPartition(),
                    (tp, current) -> current == f
                            ? new Fetching(f.partition(), f.leaderEpoch(), clockMs.getAsLong() + settings.backoffMs())
                            : current);
        }
    }

    private synchronized void backOffAll() {
        long until = clockMs.getAsLong() + settings.backoffMs();
        partitions.replaceAll((tp, f) -> new Fetching(f.partition(), f.leaderEpoch(), until));
    }

    private void failed(String why) {
        if (!why.equals(lastFailure)) {
            log.info("Replica fetcher {}: {}; retrying every {} ms", name, why, settings.backoffMs());
            lastFailure = why;
        }
    }
}
