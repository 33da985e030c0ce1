package io.varve.broker.share;

import io.varve.broker.group.FindCoordinatorHandler;
import io.varve.broker.network.client.NodeClient;
import io.varve.coordinator.share.RecordState;
import io.varve.coordinator.share.SharePartition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share-partition leader's side of the share coordinator (Kafka's persister): each call goes to the broker that
 * leads the key's {@code __share_group_state} partition (this one, in-process, or another through the {@link
 * ShareStateChannel}). Calls of one key run one at a time, in order; a write waiting behind another takes the state
 * of a later write of the same key instead (each write carries the whole state), so at most one write per key waits.
 * A retriable answer (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, a dropped connection,
 * the state topic not created yet, which the first call creates) is sent again, to the coordinator the metadata names
 * then, every {@code retryBackoffMs} until {@code deadlineMs} after the first try; then the last error is the answer.
 * Answers complete on {@code completions} (one thread in the broker), never on the thread that committed a record.
 */
public final class CoordinatorShareStateStore implements ShareStateStore, AutoCloseable {
    /** Which broker coordinates a key now (-1: none, or the state topic is not there yet), and the local keys. */
    public interface Locator {
        int coordinatorNode(SharePartitionKey key);

        List<SharePartitionKey> localKeys(String groupId);

        /** Completes once {@code __share_group_state} exists (FindCoordinator creates it on first use). */
        default CompletableFuture<Void> ensureTopic() {
            return CompletableFuture.completedFuture(null);
        }
    }

    /** FindCoordinator's view of the share coordinators: a key is "groupId:topicId:partition". */
    public FindCoordinatorHandler.Coordinators coordinators() {
        return new FindCoordinatorHandler.Coordinators() {
            @Override
            public CompletableFuture<Void> ensureTopic() {
                return locator.ensureTopic();
            }

            @Override
            public int coordinatorNode(String key) {
                int last = key.lastIndexOf(':');
                int middle = key.lastIndexOf(':', last - 1);
                return locator.coordinatorNode(new SharePartitionKey(
                        key.substring(0, middle),
                        org.apache.kafka.common.Uuid.fromString(key.substring(middle + 1, last)),
                        Integer.parseInt(key.substring(last + 1))));
            }
        };
    }

    /** Sends one state API request to a broker. */
    @FunctionalInterface
    public interface Channel {
        CompletableFuture<ApiMessage> call(int node, ApiKeys api, ApiMessage body);
    }

    private final Locator locator;
    private final Channel channel;
    private final LongSupplier clockMs;
    private final Executor completions;
    private final Executor retries;
    private final long deadlineMs;
    private final Runnable onClose;
    private final Map<SharePartitionKey, KeyCalls> calls = new ConcurrentHashMap<>();

    public CoordinatorShareStateStore(
            Locator locator,
            Channel channel,
            LongSupplier clockMs,
            Executor completions,
            long retryBackoffMs,
            long deadlineMs,
            Runnable onClose) {
        this.onClose = onClose;
        this.locator = locator;
        this.channel = channel;
        this.clockMs = clockMs;
        this.completions = completions;
        this.retries = CompletableFuture.delayedExecutor(retryBackoffMs, TimeUnit.MILLISECONDS, completions);
        this.deadlineMs = deadlineMs;
    }

    @Override
    public CompletableFuture<Loaded> read(SharePartitionKey key, int leaderEpoch) {
        ReadShareGroupStateRequestData request = new ReadShareGroupStateRequestData().setGroupId(key.groupId());
        request.topics()
                .add(new ReadShareGroupStateRequestData.ReadStateData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(new ReadShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition())
                                .setLeaderEpoch(leaderEpoch))));
        return enqueue(key, null, () -> request, ApiKeys.READ_SHARE_GROUP_STATE, m -> {
                    var p = ((ReadShareGroupStateResponseData) m)
                            .results()
                            .get(0)
                            .partitions()
                            .get(0);
                    return Errors.forCode(p.errorCode());
                })
                .thenApply(answer -> {
                    if (answer.error != Errors.NONE) {
                        return new Loaded(answer.error, -1, null);
                    }
                    var p = ((ReadShareGroupStateResponseData) answer.body)
                            .results()
                            .get(0)
                            .partitions()
                            .get(0);
                    List<SharePartition.StateBatch> batches = new ArrayList<>();
                    for (var b : p.stateBatches()) {
                        batches.add(new SharePartition.StateBatch(
                                b.firstOffset(),
                                b.lastOffset(),
                                RecordState.ofCode(b.deliveryState()),
                                b.deliveryCount()));
                    }
                    return new Loaded(
                            Errors.NONE, p.stateEpoch(), new SharePartition.Snapshot(p.startOffset(), batches));
                });
    }

    @Override
    public CompletableFuture<Errors> write(
            SharePartitionKey key, int stateEpoch, int leaderEpoch, SharePartition.Snapshot s) {
        WriteShareGroupStateRequestData.PartitionData partition = new WriteShareGroupStateRequestData.PartitionData()
                .setPartition(key.partition())
                .setStateEpoch(stateEpoch)
                .setLeaderEpoch(leaderEpoch)
                .setStartOffset(s.startOffset());
        for (SharePartition.StateBatch b : s.batches()) {
            RecordState state = b.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : b.state();
            partition
                    .stateBatches()
                    .add(new WriteShareGroupStateRequestData.StateBatch()
                            .setFirstOffset(b.firstOffset())
                            .setLastOffset(b.lastOffset())
                            .setDeliveryState(state.code())
                            .setDeliveryCount((short) b.deliveryCount()));
        }
        WriteShareGroupStateRequestData request = new WriteShareGroupStateRequestData().setGroupId(key.groupId());
        request.topics()
                .add(new WriteShareGroupStateRequestData.WriteStateData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(partition)));
        return enqueue(
                        key,
                        request,
                        () -> request,
                        ApiKeys.WRITE_SHARE_GROUP_STATE,
                        m -> Errors.forCode(((WriteShareGroupStateResponseData) m)
                                .results()
                                .get(0)
                                .partitions()
                                .get(0)
                                .errorCode()))
                .thenApply(answer -> answer.error);
    }

    @Override
    public CompletableFuture<Errors> initialize(SharePartitionKey key, int stateEpoch, long startOffset) {
        InitializeShareGroupStateRequestData request =
                new InitializeShareGroupStateRequestData().setGroupId(key.groupId());
        request.topics()
                .add(new InitializeShareGroupStateRequestData.InitializeStateData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(new InitializeShareGroupStateRequestData.PartitionData()
                                .setPartition(key.partition())
                                .setStateEpoch(stateEpoch)
                                .setStartOffset(startOffset))));
        return enqueue(
                        key,
                        null,
                        () -> request,
                        ApiKeys.INITIALIZE_SHARE_GROUP_STATE,
                        m -> Errors.forCode(((InitializeShareGroupStateResponseData) m)
                                .results()
                                .get(0)
                                .partitions()
                                .get(0)
                                .errorCode()))
                .thenApply(answer -> answer.error);
    }

    @Override
    public CompletableFuture<Errors> delete(SharePartitionKey key) {
        DeleteShareGroupStateRequestData request = new DeleteShareGroupStateRequestData().setGroupId(key.groupId());
        request.topics()
                .add(new DeleteShareGroupStateRequestData.DeleteStateData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(
                                new DeleteShareGroupStateRequestData.PartitionData().setPartition(key.partition()))));
        return enqueue(
                        key,
                        null,
                        () -> request,
                        ApiKeys.DELETE_SHARE_GROUP_STATE,
                        m -> Errors.forCode(((DeleteShareGroupStateResponseData) m)
                                .results()
                                .get(0)
                                .partitions()
                                .get(0)
                                .errorCode()))
                .thenApply(answer -> answer.error);
    }

    /**
     * One DeleteShareGroupState per coordinator, naming all of {@code keys} it coordinates now; sent once (a key
     * whose coordinator cannot be reached keeps its state, as after a failed single delete).
     */
    @Override
    public CompletableFuture<Void> deleteAll(List<SharePartitionKey> keys) {
        Map<Integer, Map<String, DeleteShareGroupStateRequestData>> byNode = new java.util.HashMap<>();
        for (SharePartitionKey key : keys) {
            int node = locator.coordinatorNode(key);
            if (node < 0) {
                continue;
            }
            DeleteShareGroupStateRequestData request = byNode.computeIfAbsent(node, n -> new java.util.HashMap<>())
                    .computeIfAbsent(key.groupId(), g -> new DeleteShareGroupStateRequestData().setGroupId(g));
            DeleteShareGroupStateRequestData.DeleteStateData topic = request.topics().stream()
                    .filter(t -> t.topicId().equals(key.topicId()))
                    .findFirst()
                    .orElseGet(() -> {
                        DeleteShareGroupStateRequestData.DeleteStateData t =
                                new DeleteShareGroupStateRequestData.DeleteStateData().setTopicId(key.topicId());
                        request.topics().add(t);
                        return t;
                    });
            topic.partitions().add(new DeleteShareGroupStateRequestData.PartitionData().setPartition(key.partition()));
        }
        List<CompletableFuture<?>> sent = new ArrayList<>();
        byNode.forEach((node, requests) -> requests.values().forEach(request -> {
            CompletableFuture<ApiMessage> answer;
            try {
                answer = channel.call(node, ApiKeys.DELETE_SHARE_GROUP_STATE, request);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            sent.add(answer.exceptionally(e -> null));
        }));
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    @Override
    public CompletableFuture<Summary> summary(SharePartitionKey key, int leaderEpoch) {
        ReadShareGroupStateSummaryRequestData request =
                new ReadShareGroupStateSummaryRequestData().setGroupId(key.groupId());
        request.topics()
                .add(new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                        .setTopicId(key.topicId())
                        .setPartitions(List.of(new ReadShareGroupStateSummaryRequestData.PartitionData()
                                .setPartition(key.partition())
                                .setLeaderEpoch(leaderEpoch))));
        Function<ApiMessage, ReadShareGroupStateSummaryResponseData.PartitionResult> result =
                m -> ((ReadShareGroupStateSummaryResponseData) m)
                        .results()
                        .get(0)
                        .partitions()
                        .get(0);
        return enqueue(
                        key,
                        null,
                        () -> request,
                        ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY,
                        m -> Errors.forCode(result.apply(m).errorCode()))
                .thenApply(answer -> answer.error != Errors.NONE
                        ? new Summary(answer.error, -1, -1, 0)
                        : new Summary(
                                Errors.NONE,
                                result.apply(answer.body).stateEpoch(),
                                result.apply(answer.body).startOffset(),
                                Math.max(0, result.apply(answer.body).deliveryCompleteCount())));
    }

    @Override
    public void close() {
        onClose.run();
    }

    @Override
    public List<SharePartitionKey> keys(String groupId) {
        return locator.localKeys(groupId);
    }

    /** How many calls wait per key, at most: one write (later ones merge into it) and a few others. */
    static final int MAX_QUEUED_PER_KEY = 16;

    /** An answer: its error (NONE, or the coordinator's or the last retriable one), and the body when there is one. */
    private record Answer(Errors error, ApiMessage body) {}

    /** One call waiting or running. {@code request} is re-read when it starts, so a merged write sends the latest. */
    private static final class Call {
        final ApiKeys api;
        final Function<ApiMessage, Errors> errorOf;
        final CompletableFuture<Answer> answer = new CompletableFuture<>();
        volatile java.util.function.Supplier<ApiMessage> request;
        boolean mergeableWrite;

        Call(ApiKeys api, java.util.function.Supplier<ApiMessage> request, Function<ApiMessage, Errors> errorOf) {
            this.api = api;
            this.request = request;
            this.errorOf = errorOf;
        }
    }

    /** The calls of one key: one runs at a time; fields guarded by the object's monitor. */
    private final class KeyCalls {
        final ArrayDeque<Call> queued = new ArrayDeque<>();
        boolean running;
        boolean retired;
    }

    private CompletableFuture<Answer> enqueue(
            SharePartitionKey key,
            WriteShareGroupStateRequestData write,
            java.util.function.Supplier<ApiMessage> request,
            ApiKeys api,
            Function<ApiMessage, Errors> errorOf) {
        Call call;
        boolean start;
        KeyCalls k;
        while (true) {
            k = calls.computeIfAbsent(key, x -> new KeyCalls());
            synchronized (k) {
                if (!k.retired) {
                    break;
                }
            }
        }
        synchronized (k) {
            Call last = k.queued.peekLast();
            if (write != null && last != null && last.mergeableWrite) {
                last.request = () -> write; // the later state replaces the one not sent yet
                return last.answer;
            }
            if (k.queued.size() >= MAX_QUEUED_PER_KEY) {
                return CompletableFuture.completedFuture(new Answer(Errors.COORDINATOR_NOT_AVAILABLE, null));
            }
            call = new Call(api, request, errorOf);
            call.mergeableWrite = write != null;
            k.queued.add(call);
            start = !k.running;
            k.running = true;
        }
        if (start) {
            next(key, k);
        }
        return call.answer;
    }

    private void next(SharePartitionKey key, KeyCalls k) {
        Call call;
        synchronized (k) {
            call = k.queued.poll();
            if (call == null) {
                k.running = false;
                k.retired = true; // an idle key leaves no trace; a caller holding it takes a new one
                calls.remove(key, k);
                return;
            }
            call.mergeableWrite = false; // started: a later write queues behind it
        }
        // answers complete on the completions executor: whatever waits on them (an acknowledgement's response, the
        // next fetch) never runs on the thread that committed the record, nor under a caller's lock
        attempt(key, call, clockMs.getAsLong() + deadlineMs)
                .whenCompleteAsync(
                        (a, e) -> {
                            call.answer.complete(e == null ? a : new Answer(errorOf(e), null));
                            next(key, k);
                        },
                        completions);
    }

    private CompletableFuture<Answer> attempt(SharePartitionKey key, Call call, long giveUpAtMs) {
        ApiMessage request = call.request.get();
        CompletableFuture<Answer> sent;
        int node = locator.coordinatorNode(key);
        if (node < 0) {
            sent = CompletableFuture.completedFuture(new Answer(Errors.COORDINATOR_NOT_AVAILABLE, null));
        } else {
            CompletableFuture<ApiMessage> answer;
            try {
                answer = channel.call(node, call.api, request);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            sent = answer.thenApply(body -> new Answer(call.errorOf.apply(body), body))
                    .exceptionally(e -> new Answer(errorOf(e), null));
        }
        return sent.thenCompose(a -> {
            if (!retriable(a.error) || clockMs.getAsLong() >= giveUpAtMs) {
                return CompletableFuture.completedFuture(a);
            }
            return CompletableFuture.supplyAsync(() -> null, retries).thenCompose(x -> attempt(key, call, giveUpAtMs));
        });
    }

    private static boolean retriable(Errors error) {
        return error == Errors.NOT_COORDINATOR
                || error == Errors.COORDINATOR_NOT_AVAILABLE
                || error == Errors.COORDINATOR_LOAD_IN_PROGRESS
                || error == Errors.BROKER_NOT_AVAILABLE
                || error == Errors.NETWORK_EXCEPTION
                || error == Errors.REQUEST_TIMED_OUT;
    }

    /** A failed send as a Kafka error: a dropped connection or a timeout is retriable, as Kafka's clients treat it. */
    private static Errors errorOf(Throwable failure) {
        Throwable e =
                failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (e instanceof NodeClient.DisconnectedException) {
            return Errors.NETWORK_EXCEPTION;
        }
        if (e instanceof java.util.concurrent.TimeoutException) {
            return Errors.REQUEST_TIMED_OUT;
        }
        return Errors.forException(e);
    }
}
