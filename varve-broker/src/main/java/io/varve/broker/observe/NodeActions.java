package io.varve.broker.observe;

import static io.varve.broker.observe.ConsoleRequests.check;

import io.varve.broker.controller.ControllerCalls;
import io.varve.http.view.AclEntry;
import io.varve.http.view.BrowseQuery;
import io.varve.http.view.BrowsedPartition;
import io.varve.http.view.ClientQuota;
import io.varve.http.view.ConfigEntry;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.OffsetReset;
import io.varve.http.view.SchemaDecoded;
import io.varve.http.view.ScramUser;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.registry.RegistryException;
import io.varve.registry.SchemaRegistry;
import io.varve.registry.format.ParsedSchema;
import io.varve.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

/**
 * The console's actions, as the HTTP request's principal ({@link #actingAs}). Topics are created and deleted through
 * the controller calls of CreateTopics and DeleteTopics (the console checks CREATE / DELETE first, as those
 * handlers do); everything else is an in-process Kafka request ({@link LocalApis}) as that principal, so the
 * same handlers, validation and ACL checks apply: DescribeConfigs and IncrementalAlterConfigs for topic configs;
 * ListGroups, Metadata, ListOffsets and an admin OffsetCommit (generation -1) for an offset reset, as {@code
 * kafka-consumer-groups --reset-offsets} does them; Fetch for the message browser ({@link MessageBrowsing}); the ACL,
 * SCRAM and quota APIs for the security pages ({@link SecurityListing}).
 */
public final class NodeActions implements ConsoleActions {
    /** OffsetCommit by topic name: the newest version before v10, which names topics by id only. */
    private static final short OFFSET_COMMIT_BY_NAME_VERSION = 9;

    private static final byte TOPIC_RESOURCE = 2;
    private static final byte SET = 0;
    private static final byte DELETE = 1;
    /** Group states in which Kafka's reset tool moves offsets: nobody consumes. */
    private static final Set<String> INACTIVE = Set.of("Empty", "Dead");

    private final ControllerCalls controller;
    private final LocalApis apis;
    private final boolean deleteTopicEnable;
    private final ConsoleRequests requests;
    private final MessageBrowsing browsing;
    private final SecurityListing security;
    /** Null when {@code varve.schema.registry.enable} is off. */
    private final SchemaRegistry schemaRegistry;

    /**
     * {@code principal} is whom the console acts as: anonymous while the console binds loopback only; the HTTP
     * listener's authenticated principal once it has one.
     */
    public NodeActions(
            ControllerCalls controller,
            boolean deleteTopicEnable,
            LocalApis apis,
            Principal principal,
            SchemaRegistry schemaRegistry) {
        this(controller, deleteTopicEnable, apis, LocalApis.Client.local(principal), schemaRegistry);
    }

    private NodeActions(
            ControllerCalls controller,
            boolean deleteTopicEnable,
            LocalApis apis,
            LocalApis.Client client,
            SchemaRegistry schemaRegistry) {
        this.controller = controller;
        this.apis = apis;
        this.schemaRegistry = schemaRegistry;
        this.deleteTopicEnable = deleteTopicEnable;
        this.requests = new ConsoleRequests(apis, client);
        this.browsing = new MessageBrowsing(requests);
        this.security = new SecurityListing(requests);
    }

    /** The HTTP listener's authenticated principal and address, for the same ACL checks as its Kafka requests. */
    @Override
    public ConsoleActions actingAs(String principal, String remoteHost) {
        return new NodeActions(
                controller, deleteTopicEnable, apis, LocalApis.Client.of(principal, remoteHost), schemaRegistry);
    }

    @Override
    public CompletableFuture<String> createTopic(String name, int partitions) {
        return controller
                .createTopics(List.of(new CreateTopicRequest(name, partitions, (short) -1, null, null)), false)
                .thenApply(results -> {
                    var r = results.get(0);
                    return r.error() == Errors.NONE ? null : message(r.error(), r.errorMessage());
                });
    }

    @Override
    public CompletableFuture<String> deleteTopic(String name) {
        if (!deleteTopicEnable) {
            return CompletableFuture.completedFuture(message(Errors.TOPIC_DELETION_DISABLED, null));
        }
        return controller.deleteTopics(List.of(name)).thenApply(errors -> {
            Errors e = errors.isEmpty() ? Errors.UNKNOWN_SERVER_ERROR : errors.get(0);
            return e == Errors.NONE ? null : message(e, null);
        });
    }

    @Override
    public CompletableFuture<List<ConfigEntry>> topicConfigs(String topic) {
        DescribeConfigsRequestData request = new DescribeConfigsRequestData();
        request.resources()
                .add(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(TOPIC_RESOURCE)
                        .setResourceName(topic)
                        .setConfigurationKeys(null));
        return requests.apis
                .<DescribeConfigsResponseData>call(ApiKeys.DESCRIBE_CONFIGS, request, requests.client)
                .thenApply(response -> {
                    DescribeConfigsResponseData.DescribeConfigsResult result =
                            response.results().get(0);
                    check(Errors.forCode(result.errorCode()), result.errorMessage(), "Topic " + topic);
                    List<ConfigEntry> out = new ArrayList<>();
                    for (DescribeConfigsResponseData.DescribeConfigsResourceResult c : result.configs()) {
                        DescribeConfigsResponse.ConfigSource source =
                                DescribeConfigsResponse.ConfigSource.forId(c.configSource());
                        out.add(new ConfigEntry(
                                c.name(),
                                c.isSensitive() ? null : c.value(),
                                sourceName(source),
                                c.readOnly(),
                                c.isSensitive()));
                    }
                    out.sort(java.util.Comparator.comparing(ConfigEntry::name));
                    return out;
                });
    }

    @Override
    public CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
        IncrementalAlterConfigsRequestData.AlterConfigsResource resource =
                new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                        .setResourceType(TOPIC_RESOURCE)
                        .setResourceName(topic);
        resource.configs()
                .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName(key)
                        .setConfigOperation(value == null ? DELETE : SET)
                        .setValue(value));
        IncrementalAlterConfigsRequestData request = new IncrementalAlterConfigsRequestData().setValidateOnly(false);
        request.resources().add(resource);
        return requests.apis
                .<IncrementalAlterConfigsResponseData>call(ApiKeys.INCREMENTAL_ALTER_CONFIGS, request, requests.client)
                .thenAccept(response -> {
                    var r = response.responses().get(0);
                    check(Errors.forCode(r.errorCode()), r.errorMessage(), "Config " + key + " of topic " + topic);
                });
    }

    @Override
    public CompletableFuture<List<OffsetReset.Moved>> resetOffsets(String group, String topic, OffsetReset to) {
        return groupState(group)
                .thenCompose(state -> {
                    if (state != null && !INACTIVE.contains(state)) {
                        throw new ConsoleFailure(
                                400,
                                "Assignments can only be reset if the group '" + group
                                        + "' is inactive, but the current state is " + state + ".");
                    }
                    return requests.partitions(topic);
                })
                .thenCompose(partitions -> targets(topic, partitions, to).thenCompose(offsets -> {
                    List<OffsetReset.Moved> moved = new ArrayList<>();
                    for (int i = 0; i < partitions.size(); i++) {
                        moved.add(new OffsetReset.Moved(topic, partitions.get(i), offsets[i]));
                    }
                    return commit(group, moved).thenApply(v -> moved);
                }));
    }

    /** The group's state from ListGroups, or null when the group is unknown (nothing committed yet). */
    private CompletableFuture<String> groupState(String group) {
        return requests.apis
                .<ListGroupsResponseData>call(ApiKeys.LIST_GROUPS, new ListGroupsRequestData(), requests.client)
                .thenApply(response -> {
                    check(Errors.forCode(response.errorCode()), "Listing groups");
                    for (ListGroupsResponseData.ListedGroup g : response.groups()) {
                        if (g.groupId().equals(group)) {
                            return g.groupState();
                        }
                    }
                    return null;
                });
    }

    /**
     * The new offset of each partition, as the reset tool computes it: an offset is clamped into the partition's
     * earliest and latest; a timestamp later than every record resets to the latest offset.
     */
    private CompletableFuture<long[]> targets(String topic, List<Integer> partitions, OffsetReset to) {
        Long time = to.to() == OffsetReset.To.TIMESTAMP ? to.value() : null;
        return requests.bounds(topic, partitions, time).thenApply(b -> {
            long[] out = new long[partitions.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = switch (to.to()) {
                    case EARLIEST -> b.earliest()[i];
                    case LATEST -> b.latest()[i];
                    case OFFSET -> Math.max(b.earliest()[i], Math.min(b.latest()[i], to.value()));
                    case TIMESTAMP -> b.atTime()[i] < 0 ? b.latest()[i] : b.atTime()[i];
                };
            }
            return out;
        });
    }

    /** An admin commit (no member, generation -1): the coordinator takes it only while the group is empty. */
    private CompletableFuture<Void> commit(String group, List<OffsetReset.Moved> moved) {
        OffsetCommitRequestData request = new OffsetCommitRequestData()
                .setGroupId(group)
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("");
        OffsetCommitRequestData.OffsetCommitRequestTopic t = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(moved.get(0).topic());
        for (OffsetReset.Moved m : moved) {
            t.partitions()
                    .add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(m.partition())
                            .setCommittedOffset(m.offset())
                            .setCommittedLeaderEpoch(-1)
                            .setCommittedMetadata(""));
        }
        request.topics().add(t);
        return requests.apis
                // v9 names the topic; v10 would need its id
                .<OffsetCommitResponseData>call(
                        ApiKeys.OFFSET_COMMIT, OFFSET_COMMIT_BY_NAME_VERSION, request, requests.client)
                .thenAccept(response -> {
                    for (var topicResponse : response.topics()) {
                        for (var p : topicResponse.partitions()) {
                            check(
                                    Errors.forCode(p.errorCode()),
                                    "Committing " + topicResponse.name() + "-" + p.partitionIndex() + " for group "
                                            + group);
                        }
                    }
                });
    }

    @Override
    public CompletableFuture<List<BrowsedPartition>> browse(BrowseQuery query) {
        return browsing.browse(query);
    }

    @Override
    public CompletableFuture<List<AclEntry>> acls() {
        return security.acls();
    }

    @Override
    public CompletableFuture<Void> createAcl(AclEntry acl) {
        return security.create(acl);
    }

    @Override
    public CompletableFuture<Void> deleteAcl(AclEntry acl) {
        return security.delete(acl);
    }

    @Override
    public CompletableFuture<List<ScramUser>> scramUsers() {
        return security.scramUsers();
    }

    @Override
    public CompletableFuture<List<ClientQuota>> clientQuotas() {
        return security.clientQuotas();
    }

    @Override
    public SchemaDecoded decodeSchemaValue(int schemaId, byte[] value, int offset) {
        if (schemaRegistry == null) {
            return null;
        }
        ParsedSchema schema;
        try {
            schema = schemaRegistry.parsed(schemaId);
        } catch (RegistryException e) {
            return new SchemaDecoded(schemaId, null, null);
        }
        return new SchemaDecoded(schemaId, schema.type(), schema.toJson(value, offset, value.length - offset));
    }

    /** The source as Admin and {@code kafka-configs} name it (the wire's TOPIC_CONFIG is DYNAMIC_TOPIC_CONFIG). */
    private static String sourceName(DescribeConfigsResponse.ConfigSource source) {
        if (source == null) {
            return "UNKNOWN";
        }
        return source == DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG ? "DYNAMIC_TOPIC_CONFIG" : source.name();
    }

    private static String message(Errors error, String detail) {
        return error.name() + ": " + (detail == null || detail.isEmpty() ? error.message() : detail);
    }
}
