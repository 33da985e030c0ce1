package io.varve.metadata.controller.cluster;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.replication.ReplicationControl;
import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker lifecycle, as Kafka's KRaft controller runs it:
 *
 * <pre>
 *   state                    event                                       next state (records)
 *   (none) / any             BrokerRegistration, new incarnation          FENCED (moves off the old one, register)
 *   FENCED                   heartbeat, caught up                         UNFENCED (unfence, offline leaders elected)
 *   FENCED                   heartbeat, wantShutDown                      FENCED, shouldShutDown
 *   UNFENCED                 heartbeat, wantShutDown, leads or in an ISR  CONTROLLED_SHUTDOWN (leaders and ISRs move)
 *   UNFENCED                 heartbeat, wantShutDown, nothing to move     FENCED, shouldShutDown
 *   UNFENCED                 heartbeat, wantFence                         FENCED (leaders and ISRs move)
 *   CONTROLLED_SHUTDOWN      heartbeat, leads nothing                     FENCED, shouldShutDown
 *   UNFENCED, CONTR_SHUTDOWN no heartbeat for broker.session.timeout.ms  FENCED (leaders and ISRs move)
 *   any                      UnregisterBroker                            (none) (leaders and ISRs move)
 * </pre>
 *
 * A broker is caught up once the metadata offset it reports reaches the controller's committed
 * offset at its registration. Pure apart from the heartbeat bookkeeping, which is soft state; the
 * time is passed in. Not thread-safe: used on the controller's event thread.
 */
public final class ClusterControl {

    private final String clusterId;
    private final BrokerHeartbeats heartbeats;
    private final ReplicationControl replication;

    /** @param clusterId the cluster id brokers must register with */
    public ClusterControl(String clusterId, BrokerHeartbeats heartbeats, ReplicationControl replication) {
        this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        this.replication = Objects.requireNonNull(replication, "replication");
    }

    public BrokerHeartbeats heartbeats() {
        return heartbeats;
    }

    /** Handles a BrokerRegistration request. */
    public ControllerResult<BrokerRegistrationReply> register(
            MetadataImage image, BrokerRegistrationRequest request, long nowMs) {
        int brokerId = request.brokerId();
        if (!clusterId.equals(request.clusterId())) {
            return refuse(
                    Errors.INCONSISTENT_CLUSTER_ID,
                    "Expected cluster ID " + clusterId + ", but got cluster ID " + request.clusterId());
        }
        String invalid = invalidRegistration(request);
        if (invalid != null) {
            return refuse(Errors.INVALID_REGISTRATION, invalid);
        }
        for (Map.Entry<String, Short> finalized :
                image.features().finalizedLevels().entrySet()) {
            VersionRange supported = request.supportedFeatures().get(finalized.getKey());
            if (supported == null || !supported.contains(finalized.getValue())) {
                VersionRange shown = supported == null ? VersionRange.of(0, 0) : supported;
                return refuse(
                        Errors.UNSUPPORTED_VERSION,
                        "Unable to register because the broker does not support finalized version "
                                + finalized.getValue() + " of " + finalized.getKey() + ". The broker wants a version"
                                + " between " + shown.min() + " and " + shown.max() + ", inclusive.");
            }
        }
        BrokerRegistration existing = image.cluster().broker(brokerId);
        if (existing != null && existing.incarnationId().equals(request.incarnationId())) {
            if (sameRegistration(existing, request)) {
                // A retry whose reply was lost: same incarnation, same contents, same epoch.
                return ControllerResult.withoutRecords(
                        new BrokerRegistrationReply(Errors.NONE, null, existing.epoch()));
            }
        } else if (existing != null && !existing.fenced() && heartbeats.hasLiveSession(brokerId, nowMs)) {
            return refuse(Errors.DUPLICATE_BROKER_REGISTRATION, "Another broker is registered with that broker id.");
        }
        List<MetadataRecord> records = new ArrayList<>();
        if (existing != null) {
            // The new incarnation starts fenced: nothing may stay led by (or wait in an ISR for) the old one.
            records.addAll(replication.removeFromIsrsAndLeaderships(image, brokerId));
            if (request.previousBrokerEpoch() != existing.epoch()) {
                // Not shown to have shut down cleanly: its log may lack records it had acknowledged (KIP-966).
                records.addAll(replication.removeFromElrs(replayed(image, records), brokerId));
            }
        }
        long brokerEpoch = Math.max(image.offset() + 1, image.cluster().highestBrokerEpoch() + 1);
        records.add(new RegisterBrokerRecord(
                brokerId,
                request.incarnationId(),
                brokerEpoch,
                request.listeners(),
                request.rack(),
                request.supportedFeatures(),
                true,
                false));
        heartbeats.registered(brokerId, image.offset(), nowMs);
        return ControllerResult.of(records, new BrokerRegistrationReply(Errors.NONE, null, brokerEpoch));
    }

    private static ControllerResult<BrokerRegistrationReply> refuse(Errors error, String message) {
        return ControllerResult.withoutRecords(BrokerRegistrationReply.failure(error, message));
    }

    private static String invalidRegistration(BrokerRegistrationRequest request) {
        if (request.brokerId() < 0) {
            return "Invalid broker id " + request.brokerId();
        }
        if (request.incarnationId().equals(Uuid.ZERO_UUID)) {
            return "Broker " + request.brokerId() + " has no incarnation id";
        }
        if (request.listeners().isEmpty()) {
            return "Broker " + request.brokerId() + " registered no listener";
        }
        Set<String> names = new HashSet<>();
        for (Endpoint endpoint : request.listeners()) {
            if (!names.add(endpoint.listenerName())) {
                return "Broker " + request.brokerId() + " registered listener " + endpoint.listenerName() + " twice";
            }
        }
        return null;
    }

    private static boolean sameRegistration(BrokerRegistration existing, BrokerRegistrationRequest request) {
        return existing.endpoints().equals(request.listeners())
                && Objects.equals(existing.rack(), request.rack())
                && existing.supportedFeatures().equals(request.supportedFeatures());
    }

    /** Handles a BrokerHeartbeat request; see the class comment for the transitions. */
    public ControllerResult<BrokerHeartbeatReply> heartbeat(
            MetadataImage image, BrokerHeartbeatRequest request, long nowMs) {
        int brokerId = request.brokerId();
        BrokerRegistration broker = image.cluster().broker(brokerId);
        if (broker == null) {
            return ControllerResult.withoutRecords(BrokerHeartbeatReply.failure(
                    Errors.STALE_BROKER_EPOCH, "No broker registration found for broker " + brokerId));
        }
        if (broker.epoch() != request.brokerEpoch()) {
            return ControllerResult.withoutRecords(BrokerHeartbeatReply.failure(
                    Errors.STALE_BROKER_EPOCH,
                    "Expected broker epoch " + broker.epoch() + ", but got broker epoch " + request.brokerEpoch()));
        }
        heartbeats.heartbeat(brokerId, request.currentMetadataOffset(), nowMs);
        boolean caughtUp = heartbeats.isCaughtUp(brokerId);
        if (broker.fenced()) {
            if (request.wantShutDown()) {
                return reply(List.of(), caughtUp, true, true);
            }
            if (request.wantFence() || !caughtUp) {
                return reply(List.of(), caughtUp, true, false);
            }
            List<MetadataRecord> records = new ArrayList<>();
            records.add(BrokerRegistrationChangeRecord.unfence(brokerId, broker.epoch()));
            records.addAll(replication.electOfflineLeaders(image, brokerId));
            return reply(records, true, false, false);
        }
        boolean shuttingDown = broker.inControlledShutdown() || request.wantShutDown();
        if (request.wantFence() || (shuttingDown && nothingToMove(image, brokerId))) {
            return reply(fence(image, broker), caughtUp, true, shuttingDown);
        }
        if (shuttingDown) {
            List<MetadataRecord> records = new ArrayList<>();
            if (!broker.inControlledShutdown()) {
                records.add(BrokerRegistrationChangeRecord.enterControlledShutdown(brokerId, broker.epoch()));
            }
            records.addAll(replication.removeFromIsrsAndLeaderships(image, brokerId));
            return reply(records, caughtUp, false, false);
        }
        return reply(List.of(), caughtUp, false, false);
    }

    private static ControllerResult<BrokerHeartbeatReply> reply(
            List<MetadataRecord> records, boolean caughtUp, boolean fenced, boolean shouldShutDown) {
        return ControllerResult.of(
                records, new BrokerHeartbeatReply(Errors.NONE, null, caughtUp, fenced, shouldShutDown));
    }

    /** True if the broker leads no partition and sits in no ISR it could leave. */
    private boolean nothingToMove(MetadataImage image, int brokerId) {
        return replication.removeFromIsrsAndLeaderships(image, brokerId).isEmpty();
    }

    /** The records that move everything off the broker, then fence it. */
    private List<MetadataRecord> fence(MetadataImage image, BrokerRegistration broker) {
        List<MetadataRecord> records = new ArrayList<>(replication.removeFromIsrsAndLeaderships(image, broker.id()));
        records.add(BrokerRegistrationChangeRecord.fence(broker.id(), broker.epoch()));
        return records;
    }

    /**
     * The periodic session check: fences every unfenced broker not heard from for the session
     * timeout, moving its leaderships. The response lists the fenced broker ids.
     */
    public ControllerResult<List<Integer>> fenceExpiredBrokers(MetadataImage image, long nowMs) {
        List<Integer> unfenced = image.cluster().brokers().values().stream()
                .filter(broker -> !broker.fenced())
                .map(BrokerRegistration::id)
                .toList();
        List<Integer> expired = heartbeats.expired(unfenced, nowMs);
        List<MetadataRecord> records = new ArrayList<>();
        MetadataImage current = image;
        for (int brokerId : expired) {
            // Each fencing sees the ones before it, so two fenced brokers never elect each other.
            List<MetadataRecord> fencing = fence(current, current.cluster().broker(brokerId));
            records.addAll(fencing);
            current = replayed(current, fencing);
        }
        return ControllerResult.of(records, expired);
    }

    /** Handles UnregisterBroker: moves everything off the broker and removes its registration. */
    public ControllerResult<ErrorReply> unregister(MetadataImage image, int brokerId) {
        BrokerRegistration broker = image.cluster().broker(brokerId);
        if (broker == null) {
            return ControllerResult.withoutRecords(
                    ErrorReply.of(Errors.BROKER_ID_NOT_REGISTERED, "Broker ID " + brokerId + " is not registered."));
        }
        List<MetadataRecord> records = new ArrayList<>(replication.removeFromIsrsAndLeaderships(image, brokerId));
        records.add(new UnregisterBrokerRecord(brokerId, broker.epoch()));
        heartbeats.remove(brokerId);
        return ControllerResult.of(records, ErrorReply.NONE);
    }

    private static MetadataImage replayed(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset());
    }
}
