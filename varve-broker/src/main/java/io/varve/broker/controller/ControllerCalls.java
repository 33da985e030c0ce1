package io.varve.broker.controller;

import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.metadata.controller.CreateTopicResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatReply;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import io.varve.metadata.controller.cluster.BrokerRegistrationReply;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.record.Endpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/**
 * What the broker's own parts ask of the controller (the lifecycle, producer ids, Metadata's and the coordinators'
 * topic creation), as calls on the controller's own terms, sent as Kafka requests through the {@link
 * ControllerChannel}: in this process they reach the same handlers as requests from the wire.
 */
public final class ControllerCalls {
    private static final int CREATE_TOPICS_TIMEOUT_MS = 30_000;

    private final ControllerChannel channel;

    public ControllerCalls(ControllerChannel channel) {
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /** Creates topics (Metadata auto-creation, internal topics); one result per topic, in request order. */
    public CompletableFuture<List<CreateTopicResult>> createTopics(
            List<CreateTopicRequest> topics, boolean validateOnly) {
        CreateTopicsRequestData request = new CreateTopicsRequestData()
                .setTimeoutMs(CREATE_TOPICS_TIMEOUT_MS)
                .setValidateOnly(validateOnly);
        for (CreateTopicRequest t : topics) {
            CreatableTopic topic = new CreatableTopic()
                    .setName(t.name())
                    .setNumPartitions(t.numPartitions())
                    .setReplicationFactor(t.replicationFactor());
            t.assignments().forEach((partition, replicas) -> topic.assignments()
                    .add(new CreatableReplicaAssignment()
                            .setPartitionIndex(partition)
                            .setBrokerIds(new ArrayList<>(replicas))));
            t.configs().forEach((name, value) -> topic.configs()
                    .add(new CreatableTopicConfig().setName(name).setValue(value)));
            request.topics().add(topic);
        }
        return channel.send(ApiKeys.CREATE_TOPICS, request).thenApply(answer -> {
            List<CreateTopicResult> results = new ArrayList<>();
            for (CreatableTopicResult r : ((CreateTopicsResponseData) answer).topics()) {
                results.add(new CreateTopicResult(
                        r.name(),
                        Errors.forCode(r.errorCode()),
                        r.errorMessage(),
                        r.topicId() == null ? Uuid.ZERO_UUID : r.topicId(),
                        r.numPartitions(),
                        r.replicationFactor(),
                        Map.of()));
            }
            return results;
        });
    }

    /** Deletes topics by name (the console); the error of each, in request order. */
    public CompletableFuture<List<Errors>> deleteTopics(List<String> names) {
        org.apache.kafka.common.message.DeleteTopicsRequestData request =
                new org.apache.kafka.common.message.DeleteTopicsRequestData().setTimeoutMs(CREATE_TOPICS_TIMEOUT_MS);
        for (String name : names) {
            request.topics()
                    .add(new org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState()
                            .setName(name)
                            .setTopicId(Uuid.ZERO_UUID));
            request.topicNames().add(name);
        }
        return channel.send(ApiKeys.DELETE_TOPICS, request).thenApply(answer -> {
            List<Errors> results = new ArrayList<>();
            for (var r : ((org.apache.kafka.common.message.DeleteTopicsResponseData) answer).responses()) {
                results.add(Errors.forCode(r.errorCode()));
            }
            return results;
        });
    }

    /**
     * A block of producer ids for this broker; its first id. The controller decides the block's size: one smaller than
     * {@code blockSize} (what this broker hands out from it) fails, since ids past it are not reserved.
     */
    public CompletableFuture<Long> allocateProducerIds(int brokerId, long brokerEpoch, int blockSize) {
        AllocateProducerIdsRequestData request =
                new AllocateProducerIdsRequestData().setBrokerId(brokerId).setBrokerEpoch(brokerEpoch);
        return channel.send(ApiKeys.ALLOCATE_PRODUCER_IDS, request).thenApply(answer -> {
            AllocateProducerIdsResponseData block = (AllocateProducerIdsResponseData) answer;
            Errors error = Errors.forCode(block.errorCode());
            if (error != Errors.NONE) {
                throw error.exception();
            }
            if (block.producerIdLen() < blockSize) {
                throw new UnknownServerException("The controller handed out " + block.producerIdLen()
                        + " producer ids, fewer than this broker's producer.id.block.size " + blockSize
                        + ": set it alike on brokers and controllers");
            }
            return block.producerIdStart();
        });
    }

    public CompletableFuture<BrokerRegistrationReply> registerBroker(BrokerRegistrationRequest registration) {
        BrokerRegistrationRequestData request = new BrokerRegistrationRequestData()
                .setBrokerId(registration.brokerId())
                .setClusterId(registration.clusterId())
                .setIncarnationId(registration.incarnationId())
                .setRack(registration.rack());
        for (Endpoint e : registration.listeners()) {
            request.listeners()
                    .add(new BrokerRegistrationRequestData.Listener()
                            .setName(e.listenerName())
                            .setHost(e.host())
                            .setPort(e.port())
                            .setSecurityProtocol(SecurityProtocol.forName(e.securityProtocol()).id));
        }
        registration.supportedFeatures().forEach((name, range) -> request.features()
                .add(new BrokerRegistrationRequestData.Feature()
                        .setName(name)
                        .setMinSupportedVersion(range.min())
                        .setMaxSupportedVersion(range.max())));
        return channel.send(ApiKeys.BROKER_REGISTRATION, request).thenApply(answer -> {
            BrokerRegistrationResponseData reply = (BrokerRegistrationResponseData) answer;
            Errors error = Errors.forCode(reply.errorCode());
            return new BrokerRegistrationReply(
                    error, error == Errors.NONE ? null : error.message(), reply.brokerEpoch());
        });
    }

    public CompletableFuture<BrokerHeartbeatReply> brokerHeartbeat(BrokerHeartbeatRequest heartbeat) {
        BrokerHeartbeatRequestData request = new BrokerHeartbeatRequestData()
                .setBrokerId(heartbeat.brokerId())
                .setBrokerEpoch(heartbeat.brokerEpoch())
                .setCurrentMetadataOffset(heartbeat.currentMetadataOffset())
                .setWantFence(heartbeat.wantFence())
                .setWantShutDown(heartbeat.wantShutDown());
        return channel.send(ApiKeys.BROKER_HEARTBEAT, request).thenApply(answer -> {
            BrokerHeartbeatResponseData reply = (BrokerHeartbeatResponseData) answer;
            Errors error = Errors.forCode(reply.errorCode());
            return new BrokerHeartbeatReply(
                    error,
                    error == Errors.NONE ? null : error.message(),
                    reply.isCaughtUp(),
                    reply.isFenced(),
                    reply.shouldShutDown());
        });
    }

    /**
     * A partition leader's ISR changes (AlterPartition v3: topic ids, members with their broker epochs). The reply's
     * request-level error and each partition's are the controller's; lost connections and NOT_CONTROLLER are retried
     * by the channel within its deadline.
     */
    public CompletableFuture<AlterPartitionReply> alterPartition(AlterPartitionRequest alter) {
        AlterPartitionRequestData request =
                new AlterPartitionRequestData().setBrokerId(alter.brokerId()).setBrokerEpoch(alter.brokerEpoch());
        Map<Uuid, AlterPartitionRequestData.TopicData> topics = new LinkedHashMap<>();
        for (AlterPartitionRequest.PartitionIsr p : alter.partitions()) {
            AlterPartitionRequestData.TopicData topic =
                    topics.computeIfAbsent(p.topicId(), id -> new AlterPartitionRequestData.TopicData().setTopicId(id));
            AlterPartitionRequestData.PartitionData partition = new AlterPartitionRequestData.PartitionData()
                    .setPartitionIndex(p.partitionId())
                    .setLeaderEpoch(p.leaderEpoch())
                    .setPartitionEpoch(p.partitionEpoch());
            p.newIsr().forEach(m -> partition
                    .newIsrWithEpochs()
                    .add(new AlterPartitionRequestData.BrokerState()
                            .setBrokerId(m.brokerId())
                            .setBrokerEpoch(m.brokerEpoch())));
            topic.partitions().add(partition);
        }
        request.topics().addAll(topics.values());
        return channel.send(ApiKeys.ALTER_PARTITION, request).thenApply(answer -> {
            AlterPartitionResponseData reply = (AlterPartitionResponseData) answer;
            List<AlterPartitionReply.PartitionResult> results = new ArrayList<>();
            for (AlterPartitionResponseData.TopicData t : reply.topics()) {
                for (AlterPartitionResponseData.PartitionData p : t.partitions()) {
                    results.add(new AlterPartitionReply.PartitionResult(
                            t.topicId(),
                            p.partitionIndex(),
                            Errors.forCode(p.errorCode()),
                            p.leaderId(),
                            p.leaderEpoch(),
                            p.isr(),
                            p.partitionEpoch()));
                }
            }
            return new AlterPartitionReply(Errors.forCode(reply.errorCode()), results);
        });
    }

    public CompletableFuture<ErrorReply> unregisterBroker(int brokerId) {
        return channel.send(ApiKeys.UNREGISTER_BROKER, new UnregisterBrokerRequestData().setBrokerId(brokerId))
                .thenApply(answer -> {
                    UnregisterBrokerResponseData reply = (UnregisterBrokerResponseData) answer;
                    return ErrorReply.of(Errors.forCode(reply.errorCode()), reply.errorMessage());
                });
    }
}
