package io.varve.broker.replica.fetcher;

import io.varve.broker.network.client.NodeClient;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.WireRecords;
import io.varve.broker.replica.Partition;
import io.varve.storage.epoch.EpochEndOffset;
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
 * One thread fetching a set of partitions from one leader broker, as Kafka's replica fetcher does: a sessionless
 * Fetch naming this broker in ReplicaState, each partition from its log end with the epoch of its last batch; the
 * answer is appended as it is (the leader's offsets and epochs), a diverging epoch truncates first, an offset the
 * leader no longer has restarts the log at the leader's start. A partition whose fetch fails waits out the back-off;
 * a new leader or epoch comes from the metadata image, which moves the partition to another fetcher.
 */
final class ReplicaFetcher implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ReplicaFetcher.class);
    /** The Fetch version this broker's leaders serve (ReplicaState, topic ids, diverging epochs). */
    static final short FETCH_VERSION = 17;

    private record Fetching(Partition partition, int leaderEpoch, long notBeforeMs) {}

    private final int localId;
    private final int leaderId;
    private final ReplicaFetcherSettings settings;
    private final NodeClient client;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final LongSupplier brokerEpoch;
    private final LongSupplier clockMs;
    private final String name;
    /** Guarded by this object's monitor. */
    private final Map<TopicPartition, Fetching> partitions = new LinkedHashMap<>();

    private volatile boolean running = true;
    private Thread thread;
    private String lastFailure;

    ReplicaFetcher(
            int localId,
            int leaderId,
            int fetcherId,
            ReplicaFetcherSettings settings,
            NodeClient client,
            IntFunction<Optional<InetSocketAddress>> addresses,
            LongSupplier brokerEpoch,
            LongSupplier clockMs) {
        this.localId = localId;
        this.leaderId = leaderId;
        this.settings = settings;
        this.client = client;
        this.addresses = addresses;
        this.brokerEpoch = brokerEpoch;
        this.clockMs = clockMs;
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

    void shutdown() {
        running = false;
        synchronized (this) {
            notifyAll();
        }
        if (thread != null) {
            thread.interrupt();
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
        List<Fetching> ready = readyPartitions();
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
            ClientFrames.Response answer = client.send(
                            address.get(),
                            ApiKeys.FETCH,
                            FETCH_VERSION,
                            request,
                            settings.waitMaxMs() + settings.requestTimeoutMs())
                    .get(settings.waitMaxMs() + settings.requestTimeoutMs() + 1_000, TimeUnit.MILLISECONDS);
            response = (FetchResponseData) answer.body();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            failed("fetching from " + address.get() + " failed: " + (e.getCause() != null ? e.getCause() : e));
            backOffAll();
            return;
        }
        if (lastFailure != null) {
            log.info("Replica fetcher {} fetches from leader {} again", name, leaderId);
            lastFailure = null;
        }
        if (response.errorCode() != Errors.NONE.code()) {
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
                .setIsolationLevel((byte) 0)
                .setSessionId(0)
                .setSessionEpoch(-1);
        Map<Uuid, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        for (Fetching f : ready) {
            Partition p = f.partition();
            FetchRequestData.FetchTopic topic =
                    topics.computeIfAbsent(p.topicId(), id -> new FetchRequestData.FetchTopic()
                            .setTopicId(id)
                            .setTopic(p.topicPartition().topic()));
            topic.partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(p.topicPartition().partition())
                            .setCurrentLeaderEpoch(f.leaderEpoch())
                            .setFetchOffset(p.log().logEndOffset())
                            .setLastFetchedEpoch(p.log().latestLeaderEpoch())
                            .setLogStartOffset(p.log().logStartOffset())
                            .setPartitionMaxBytes(settings.fetchMaxBytes()));
            sent.put(p.topicPartition(), f);
        }
        request.topics().addAll(topics.values());
        return request;
    }

    private void handle(Fetching f, FetchResponseData.PartitionData p) {
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
                partition.appendAsFollower(
                        f.leaderEpoch(),
                        records == null ? ByteBuffer.allocate(0) : records,
                        p.highWatermark(),
                        p.logStartOffset());
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
            default -> delay(f, "leader " + leaderId + " answered " + error + " for " + partition.topicPartition());
        }
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
