package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * The per-topic half of the authorization hook, for APIs whose request names many topics and whose response has an
 * entry for each: the topics the principal may not use are taken out of the request before its handler runs (so
 * nothing is appended, read or created for them), and put back into the response with TOPIC_AUTHORIZATION_FAILED
 * (CLUSTER_AUTHORIZATION_FAILED for broker resources), as Kafka answers. Metadata leaves out, rather than reports,
 * topics a request for all topics may not describe.
 */
final class TopicAuthorization {
    private final BrokerAuthorizer authorizer;

    TopicAuthorization(BrokerAuthorizer authorizer) {
        this.authorizer = authorizer;
    }

    private boolean topic(RequestContext r, AclOperation op, String name) {
        return name != null && authorizer.authorize(r, op, ResourceType.TOPIC, name);
    }

    /**
     * Removes the entries {@code allowed} refuses, runs the handler, then lets {@code addErrors} put them back into
     * the response (which is null for acks=0 produce: nothing to add then).
     */
    static <E> CompletableFuture<ApiMessage> partial(
            RequestContext r,
            ApiHandler handler,
            Collection<E> entries,
            Predicate<E> allowed,
            BiConsumer<ApiMessage, List<E>> addErrors) {
        List<E> refused = new ArrayList<>();
        for (E e : entries) {
            if (!allowed.test(e)) {
                refused.add(e);
            }
        }
        if (refused.isEmpty()) {
            return handler.handle(r);
        }
        entries.removeAll(refused);
        return handler.handle(r).thenApply(response -> {
            if (response != null) {
                addErrors.accept(response, refused);
            }
            return response;
        });
    }

    CompletableFuture<ApiMessage> produce(RequestContext r, ApiHandler h) {
        ProduceRequestData data = r.body();
        Function<ProduceRequestData.TopicProduceData, String> name =
                t -> t.name() != null && !t.name().isEmpty() ? t.name() : authorizer.topicName(t.topicId());
        return partial(
                r,
                h,
                data.topicData(),
                t -> name.apply(t) == null || topic(r, AclOperation.WRITE, name.apply(t)),
                (response, refused) -> {
                    ProduceResponseData out = (ProduceResponseData) response;
                    for (ProduceRequestData.TopicProduceData t : refused) {
                        ProduceResponseData.TopicProduceResponse entry = new ProduceResponseData.TopicProduceResponse()
                                .setName(t.name())
                                .setTopicId(t.topicId());
                        t.partitionData().forEach(p -> entry.partitionResponses()
                                .add(new ProduceResponseData.PartitionProduceResponse()
                                        .setIndex(p.index())
                                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                        .setBaseOffset(-1)
                                        .setLogAppendTimeMs(-1)
                                        .setLogStartOffset(-1)));
                        out.responses().add(entry);
                    }
                });
    }

    CompletableFuture<ApiMessage> fetch(RequestContext r, ApiHandler h) {
        FetchRequestData data = r.body();
        int replicaId = data.replicaState() != null && data.replicaState().replicaId() >= 0
                ? data.replicaState().replicaId()
                : data.replicaId();
        if (replicaId >= 0) {
            // a follower's fetch: only brokers (super users, or principals with CLUSTER_ACTION) replicate
            return authorizer.authorizeCluster(r, AclOperation.CLUSTER_ACTION)
                    ? h.handle(r)
                    : AuthorizationHook.refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, "replica fetch");
        }
        Function<FetchRequestData.FetchTopic, String> name =
                t -> t.topic() != null && !t.topic().isEmpty() ? t.topic() : authorizer.topicName(t.topicId());
        return partial(
                r,
                h,
                data.topics(),
                t -> name.apply(t) == null || topic(r, AclOperation.READ, name.apply(t)),
                (response, refused) -> {
                    FetchResponseData out = (FetchResponseData) response;
                    for (FetchRequestData.FetchTopic t : refused) {
                        FetchResponseData.FetchableTopicResponse entry = new FetchResponseData.FetchableTopicResponse()
                                .setTopic(t.topic())
                                .setTopicId(t.topicId());
                        t.partitions().forEach(p -> entry.partitions()
                                .add(FetchResponse.partitionResponse(
                                        p.partition(), Errors.TOPIC_AUTHORIZATION_FAILED)));
                        out.responses().add(entry);
                    }
                });
    }

    CompletableFuture<ApiMessage> listOffsets(RequestContext r, ApiHandler h) {
        ListOffsetsRequestData data = r.body();
        return partial(r, h, data.topics(), t -> topic(r, AclOperation.DESCRIBE, t.name()), (response, refused) -> {
            ListOffsetsResponseData out = (ListOffsetsResponseData) response;
            for (ListOffsetsRequestData.ListOffsetsTopic t : refused) {
                ListOffsetsResponseData.ListOffsetsTopicResponse entry =
                        new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(t.name());
                t.partitions().forEach(p -> entry.partitions()
                        .add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setOffset(-1)
                                .setTimestamp(-1)));
                out.topics().add(entry);
            }
        });
    }

    CompletableFuture<ApiMessage> metadata(RequestContext r, ApiHandler h) {
        MetadataRequestData data = r.body();
        if (data.topics() == null) {
            // every topic: leave out silently what the principal may not describe
            return h.handle(r).thenApply(response -> {
                ((MetadataResponseData) response).topics().removeIf(t -> !topic(r, AclOperation.DESCRIBE, t.name()));
                return response;
            });
        }
        boolean mayCreate = authorizer.authorizeCluster(r, AclOperation.CREATE);
        Function<MetadataRequestData.MetadataRequestTopic, String> name =
                t -> t.name() != null ? t.name() : authorizer.topicName(t.topicId());
        Predicate<MetadataRequestData.MetadataRequestTopic> allowed = t -> {
            String n = name.apply(t);
            if (n == null) {
                return true; // an unknown id: the handler answers UNKNOWN_TOPIC_ID
            }
            if (!topic(r, AclOperation.DESCRIBE, n)) {
                return false;
            }
            // auto-creation needs CREATE: without it a missing topic is not created, and says why
            return !data.allowAutoTopicCreation()
                    || authorizer.topicExists(n)
                    || mayCreate
                    || topic(r, AclOperation.CREATE, n);
        };
        return partial(r, h, data.topics(), allowed, (response, refused) -> {
            MetadataResponseData out = (MetadataResponseData) response;
            for (MetadataRequestData.MetadataRequestTopic t : refused) {
                out.topics()
                        .add(new MetadataResponseData.MetadataResponseTopic()
                                .setName(name.apply(t))
                                .setTopicId(t.topicId())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setTopicAuthorizedOperations(Integer.MIN_VALUE));
            }
        });
    }

    CompletableFuture<ApiMessage> createTopics(RequestContext r, ApiHandler h) {
        CreateTopicsRequestData data = r.body();
        boolean cluster = authorizer.authorizeCluster(r, AclOperation.CREATE);
        return partial(
                r, h, data.topics(), t -> cluster || topic(r, AclOperation.CREATE, t.name()), (response, refused) -> {
                    CreateTopicsResponseData out = (CreateTopicsResponseData) response;
                    refused.forEach(t -> out.topics()
                            .add(new CreateTopicsResponseData.CreatableTopicResult()
                                    .setName(t.name())
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                    .setErrorMessage("Authorization failed.")
                                    .setNumPartitions(-1)
                                    .setReplicationFactor((short) -1)));
                });
    }

    CompletableFuture<ApiMessage> deleteTopics(RequestContext r, ApiHandler h) {
        DeleteTopicsRequestData data = r.body();
        BiConsumer<ApiMessage, List<String>> addNames =
                (response, refused) -> refused.forEach(n -> ((DeleteTopicsResponseData) response)
                        .responses()
                        .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                .setName(n)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setErrorMessage("Authorization failed.")));
        if (!data.topicNames().isEmpty()) {
            return partial(r, h, data.topicNames(), n -> topic(r, AclOperation.DELETE, n), addNames);
        }
        Function<DeleteTopicsRequestData.DeleteTopicState, String> name =
                t -> t.name() != null ? t.name() : authorizer.topicName(t.topicId());
        return partial(
                r,
                h,
                data.topics(),
                t -> name.apply(t) == null || topic(r, AclOperation.DELETE, name.apply(t)),
                (response, refused) -> refused.forEach(t -> ((DeleteTopicsResponseData) response)
                        .responses()
                        .add(new DeleteTopicsResponseData.DeletableTopicResult()
                                .setName(t.name())
                                .setTopicId(t.topicId())
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
                                .setErrorMessage("Authorization failed."))));
    }

    CompletableFuture<ApiMessage> offsetCommit(RequestContext r, ApiHandler h) {
        OffsetCommitRequestData data = r.body();
        Function<OffsetCommitRequestData.OffsetCommitRequestTopic, String> name =
                t -> t.name() != null && !t.name().isEmpty() ? t.name() : authorizer.topicName(t.topicId());
        return partial(
                r,
                h,
                data.topics(),
                t -> name.apply(t) == null || topic(r, AclOperation.READ, name.apply(t)),
                (response, refused) -> {
                    OffsetCommitResponseData out = (OffsetCommitResponseData) response;
                    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : refused) {
                        OffsetCommitResponseData.OffsetCommitResponseTopic entry =
                                new OffsetCommitResponseData.OffsetCommitResponseTopic()
                                        .setName(t.name())
                                        .setTopicId(t.topicId());
                        t.partitions().forEach(p -> entry.partitions()
                                .add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                        .setPartitionIndex(p.partitionIndex())
                                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                        out.topics().add(entry);
                    }
                });
    }

    /**
     * OffsetFetch needs DESCRIBE on each topic, per group: a named topic the principal may not describe answers
     * TOPIC_AUTHORIZATION_FAILED, and a fetch of all topics leaves such topics out. From version 10 the request
     * names topics by id only, so the check is on the name the metadata image gives each id (an unknown id goes on
     * to the handler, which answers UNKNOWN_TOPIC_ID).
     */
    CompletableFuture<ApiMessage> offsetFetch(RequestContext r, ApiHandler h) {
        OffsetFetchRequestData data = r.body();
        if (r.apiVersion() < 8) {
            if (data.topics() == null) {
                return h.handle(r).thenApply(response -> {
                    ((OffsetFetchResponseData) response)
                            .topics()
                            .removeIf(t -> !topic(r, AclOperation.DESCRIBE, t.name()));
                    return response;
                });
            }
            return partial(r, h, data.topics(), t -> topic(r, AclOperation.DESCRIBE, t.name()), (response, refused) -> {
                OffsetFetchResponseData out = (OffsetFetchResponseData) response;
                for (OffsetFetchRequestData.OffsetFetchRequestTopic t : refused) {
                    OffsetFetchResponseData.OffsetFetchResponseTopic entry =
                            new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(t.name());
                    t.partitionIndexes().forEach(p -> entry.partitions()
                            .add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                    .setPartitionIndex(p)
                                    .setCommittedOffset(-1)
                                    .setMetadata("")
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    out.topics().add(entry);
                }
            });
        }
        boolean byId = r.apiVersion() >= 10;
        Function<Uuid, String> nameOfId = authorizer::topicName;
        Map<String, List<OffsetFetchRequestData.OffsetFetchRequestTopics>> refusedByGroup = new HashMap<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : data.groups()) {
            if (g.topics() == null) {
                continue;
            }
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> refused = new ArrayList<>();
            for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                String name = byId ? nameOfId.apply(t.topicId()) : t.name();
                if (name != null && !topic(r, AclOperation.DESCRIBE, name)) {
                    refused.add(t);
                }
            }
            if (!refused.isEmpty()) {
                g.topics().removeAll(refused);
                refusedByGroup.put(g.groupId(), refused);
            }
        }
        return h.handle(r).thenApply(response -> {
            for (OffsetFetchResponseData.OffsetFetchResponseGroup g : ((OffsetFetchResponseData) response).groups()) {
                List<OffsetFetchRequestData.OffsetFetchRequestTopics> refused = refusedByGroup.get(g.groupId());
                if (refused == null) {
                    // all topics, or none refused: leave out what may not be described
                    g.topics().removeIf(t -> {
                        String name = byId ? nameOfId.apply(t.topicId()) : t.name();
                        return name != null && !topic(r, AclOperation.DESCRIBE, name);
                    });
                    continue;
                }
                if (g.errorCode() != Errors.NONE.code()) {
                    continue; // a group-level error stands for every partition
                }
                for (OffsetFetchRequestData.OffsetFetchRequestTopics t : refused) {
                    OffsetFetchResponseData.OffsetFetchResponseTopics entry = byId
                            ? new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(t.topicId())
                            : new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.name());
                    t.partitionIndexes().forEach(p -> entry.partitions()
                            .add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                    .setPartitionIndex(p)
                                    .setCommittedOffset(-1)
                                    .setCommittedLeaderEpoch(-1)
                                    .setMetadata("")
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
                    g.topics().add(entry);
                }
            }
            return response;
        });
    }

    /** Config resource types of the wire protocol. */
    private static final byte TOPIC_RESOURCE = 2;

    private static final byte BROKER_RESOURCE = 4;
    private static final byte BROKER_LOGGER_RESOURCE = 8;
    private static final byte GROUP_RESOURCE = 32;

    /** The error of a config resource the caller may not describe or alter. */
    static Errors configRefusal(byte type) {
        return type == TOPIC_RESOURCE
                ? Errors.TOPIC_AUTHORIZATION_FAILED
                : type == GROUP_RESOURCE ? Errors.GROUP_AUTHORIZATION_FAILED : Errors.CLUSTER_AUTHORIZATION_FAILED;
    }

    /** Whether {@code op} (DESCRIBE_CONFIGS or ALTER_CONFIGS) on a config resource is allowed. */
    boolean configResource(RequestContext r, AclOperation op, byte type, String name) {
        if (type == TOPIC_RESOURCE) {
            return topic(r, op, name);
        }
        if (type == BROKER_RESOURCE || type == BROKER_LOGGER_RESOURCE) {
            return authorizer.authorizeCluster(r, op);
        }
        if (type == GROUP_RESOURCE) {
            return authorizer.authorize(r, op, ResourceType.GROUP, name);
        }
        return authorizer.authorizeCluster(r, op);
    }

    CompletableFuture<ApiMessage> describeConfigs(RequestContext r, ApiHandler h) {
        DescribeConfigsRequestData data = r.body();
        return partial(
                r,
                h,
                data.resources(),
                res -> configResource(r, AclOperation.DESCRIBE_CONFIGS, res.resourceType(), res.resourceName()),
                (response, refused) -> refused.forEach(res -> ((DescribeConfigsResponseData) response)
                        .results()
                        .add(new DescribeConfigsResponseData.DescribeConfigsResult()
                                .setResourceType(res.resourceType())
                                .setResourceName(res.resourceName())
                                .setErrorCode(configRefusal(res.resourceType()).code())
                                .setErrorMessage("Authorization failed."))));
    }
}
