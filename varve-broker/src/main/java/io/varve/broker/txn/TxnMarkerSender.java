package io.varve.broker.txn;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.coordinator.runtime.CoordinatorScheduler;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the markers of one completing transaction to each of its partitions' current leader: this broker's own
 * partitions through the {@link TxnMarkerWriter}, the others' with WriteTxnMarkers to their leader over the
 * inter-broker listener ({@link RemoteMarkers}). A partition whose marker failed with a retriable error (its leader
 * moved: NOT_LEADER_OR_FOLLOWER, no leader now, the connection dropped or timed out, NOT_ENOUGH_REPLICAS...) is tried
 * again after {@link #RETRY_BACKOFF_MS} at whatever broker leads it then, until every marker is written; a partition
 * that no longer exists needs none. The delivery fails, and the transaction is left to the next coordinator, when
 * this coordinator no longer coordinates it or a partition refuses the marker for good (INVALID_PRODUCER_EPOCH,
 * TRANSACTION_COORDINATOR_FENCED: a newer producer or coordinator epoch exists, as Kafka stops there too).
 *
 * <p>Bounded: a transaction has one attempt in flight at a time, at most one request per leader in it, and the node
 * client refuses requests beyond its per-connection limit (refused ones are retried like a dropped connection).
 */
public final class TxnMarkerSender {
    private static final Logger log = LoggerFactory.getLogger(TxnMarkerSender.class);
    static final long RETRY_BACKOFF_MS = 100;
    /** A delivery still failing logs again every this many attempts (about every 5 s). */
    private static final int LOG_EVERY_ATTEMPTS = 50;

    /** A marker written to a partition this broker leads, completing once committed ({@link TxnMarkerWriter}). */
    public interface LocalMarkers {
        CompletableFuture<TxnMarkerWriter.Outcome> write(
                TopicPartition tp, long producerId, short epoch, int coordinatorEpoch, boolean commit);
    }

    /** WriteTxnMarkers to another broker; fails when it cannot be sent or answered. */
    public interface RemoteMarkers {
        CompletableFuture<WriteTxnMarkersResponseData> send(int nodeId, WriteTxnMarkersRequestData request);
    }

    private final int nodeId;
    private final MetadataCache cache;
    private final LocalMarkers local;
    private final RemoteMarkers remote;
    private final CoordinatorScheduler scheduler;

    /** Retries wait on {@code scheduler}, on the thread of the coordinator partition they belong to. */
    public TxnMarkerSender(
            int nodeId, MetadataCache cache, LocalMarkers local, RemoteMarkers remote, CoordinatorScheduler scheduler) {
        this.nodeId = nodeId;
        this.cache = cache;
        this.local = local;
        this.remote = remote;
        this.scheduler = scheduler;
    }

    /**
     * Writes every marker of {@code m}; completes once all are written, fails as the class comment says.
     * {@code stillCoordinator} is asked before every attempt.
     */
    public CompletableFuture<Void> send(int coordinatorPartition, MarkerRequest m, BooleanSupplier stillCoordinator) {
        Delivery d = new Delivery(coordinatorPartition, m, stillCoordinator);
        d.attempt();
        return d.result;
    }

    /** One transaction's markers; {@code remaining} and the errors are guarded by the delivery's monitor. */
    private final class Delivery {
        final int coordinatorPartition;
        final MarkerRequest m;
        final BooleanSupplier stillCoordinator;
        final CompletableFuture<Void> result = new CompletableFuture<>();
        final Set<TopicPartition> remaining;
        int attempts;
        Throwable lastError;
        Throwable fatal;

        Delivery(int coordinatorPartition, MarkerRequest m, BooleanSupplier stillCoordinator) {
            this.coordinatorPartition = coordinatorPartition;
            this.m = m;
            this.stillCoordinator = stillCoordinator;
            this.remaining = new HashSet<>(m.partitions());
        }

        void attempt() {
            if (!stillCoordinator.getAsBoolean()) {
                result.completeExceptionally(
                        new NotCoordinatorException("This broker no longer coordinates " + m.transactionalId() + "."));
                return;
            }
            List<TopicPartition> todo;
            synchronized (this) {
                attempts++;
                lastError = null;
                todo = List.copyOf(remaining);
            }
            MetadataSnapshot snapshot = cache.snapshot();
            Map<Integer, List<TopicPartition>> byLeader = new HashMap<>();
            List<CompletableFuture<?>> inFlight = new ArrayList<>();
            for (TopicPartition tp : todo) {
                TopicInfo topic = snapshot.topicsByName().get(tp.topic());
                PartitionInfo p = topic == null ? null : topic.partitions().get(tp.partition());
                if (p == null) {
                    done(tp, null); // deleted: nothing to mark
                } else if (p.leader() < 0) {
                    done(tp, Errors.LEADER_NOT_AVAILABLE.exception());
                } else if (p.leader() == nodeId) {
                    inFlight.add(writeLocally(tp));
                } else {
                    byLeader.computeIfAbsent(p.leader(), n -> new ArrayList<>()).add(tp);
                }
            }
            byLeader.forEach((leader, tps) -> inFlight.add(writeRemotely(leader, tps)));
            CompletableFuture.allOf(inFlight.toArray(new CompletableFuture<?>[0]))
                    .whenComplete((v, e) -> finishAttempt());
        }

        private CompletableFuture<?> writeLocally(TopicPartition tp) {
            try {
                return local.write(tp, m.producerId(), m.epoch(), m.coordinatorEpoch(), m.commit())
                        .handle((outcome, e) -> {
                            done(tp, e);
                            return null;
                        });
            } catch (RuntimeException e) {
                done(tp, e);
                return CompletableFuture.completedFuture(null);
            }
        }

        private CompletableFuture<?> writeRemotely(int leader, List<TopicPartition> tps) {
            CompletableFuture<WriteTxnMarkersResponseData> sent;
            try {
                sent = remote.send(leader, request(tps));
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e);
            }
            return sent.handle((response, e) -> {
                if (e != null) {
                    tps.forEach(tp -> done(tp, e));
                    return null;
                }
                Set<TopicPartition> answered = new HashSet<>();
                for (var marker : response.markers()) {
                    for (var topic : marker.topics()) {
                        for (var p : topic.partitions()) {
                            TopicPartition tp = new TopicPartition(topic.name(), p.partitionIndex());
                            answered.add(tp);
                            Errors error = Errors.forCode(p.errorCode());
                            done(tp, error == Errors.NONE ? null : error.exception());
                        }
                    }
                }
                for (TopicPartition tp : tps) {
                    if (!answered.contains(tp)) {
                        done(tp, Errors.NETWORK_EXCEPTION.exception("broker " + leader + " did not answer for " + tp));
                    }
                }
                return null;
            });
        }

        private WriteTxnMarkersRequestData request(List<TopicPartition> tps) {
            Map<String, WriteTxnMarkersRequestData.WritableTxnMarkerTopic> topics = new HashMap<>();
            for (TopicPartition tp : tps) {
                topics.computeIfAbsent(tp.topic(), name -> new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                                .setName(name)
                                .setPartitionIndexes(new ArrayList<>()))
                        .partitionIndexes()
                        .add(tp.partition());
            }
            return new WriteTxnMarkersRequestData()
                    .setMarkers(List.of(new WriteTxnMarkersRequestData.WritableTxnMarker()
                            .setProducerId(m.producerId())
                            .setProducerEpoch(m.epoch())
                            .setTransactionResult(m.commit())
                            .setCoordinatorEpoch(m.coordinatorEpoch())
                            .setTopics(new ArrayList<>(topics.values()))));
        }

        private synchronized void done(TopicPartition tp, Throwable error) {
            Throwable cause = error == null ? null : unwrap(error);
            if (cause == null) {
                remaining.remove(tp);
            } else if (isFatal(cause)) {
                fatal = cause;
            } else {
                lastError = cause;
            }
        }

        private void finishAttempt() {
            Throwable fatalNow;
            int left;
            int tries;
            Throwable last;
            synchronized (this) {
                fatalNow = fatal;
                left = remaining.size();
                tries = attempts;
                last = lastError;
            }
            String result = m.commit() ? "COMMIT" : "ABORT";
            if (fatalNow != null) {
                log.warn(
                        "The {} markers of {} (producer id {} epoch {}) were refused ({}): leaving the transaction to"
                                + " a newer coordinator",
                        result,
                        m.transactionalId(),
                        m.producerId(),
                        m.epoch(),
                        fatalNow.toString());
                this.result.completeExceptionally(fatalNow);
            } else if (left == 0) {
                if (tries > 1) {
                    log.info(
                            "Wrote the {} markers of {} to all {} partitions after {} attempts",
                            result,
                            m.transactionalId(),
                            m.partitions().size(),
                            tries);
                }
                this.result.complete(null);
            } else {
                if (tries == 1 || tries % LOG_EVERY_ATTEMPTS == 0) {
                    log.warn(
                            "Writing the {} markers of {} to {} of {} partitions failed ({}); retrying every {} ms",
                            result,
                            m.transactionalId(),
                            left,
                            m.partitions().size(),
                            last,
                            RETRY_BACKOFF_MS);
                }
                try {
                    scheduler.schedule(coordinatorPartition, this::attempt, RETRY_BACKOFF_MS);
                } catch (RejectedExecutionException e) {
                    // shutting down: the next coordinator resumes the markers from the PREPARE_* record
                    this.result.completeExceptionally(new NotCoordinatorException("The coordinator is shut down."));
                }
            }
        }
    }

    /** A marker refusal no retry can change: a newer producer or coordinator epoch, or a request the log rejects. */
    private static boolean isFatal(Throwable cause) {
        if (cause instanceof InvalidProducerEpochException || cause instanceof TransactionCoordinatorFencedException) {
            return true;
        }
        return cause instanceof ApiException && !(cause instanceof RetriableException);
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
