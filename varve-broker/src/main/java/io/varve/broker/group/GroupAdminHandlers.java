package io.varve.broker.group;

import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.GroupCoordinatorShard.ListedGroup;
import io.varve.coordinator.group.classic.ClassicApi;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeGroups (v0-6), ListGroups (v0-5, state and type filters) and DeleteGroups (v0-2). */
final class GroupAdminHandlers {
    /** AuthorizedOperations when the client did not ask for them. */
    static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;
    /** Without ACLs every group operation is allowed: READ (3), DELETE (6), DESCRIBE (8), DESCRIBE_CONFIGS (10), ALTER_CONFIGS (11). */
    static final int ALL_GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

    private static final short FIRST_GROUP_ID_NOT_FOUND_VERSION = 6;

    private final GroupCoordinatorRuntime runtime;

    GroupAdminHandlers(GroupCoordinatorRuntime runtime) {
        this.runtime = runtime;
    }

    CompletableFuture<ApiMessage> describe(RequestContext request) {
        DescribeGroupsRequestData data = request.body();
        short version = request.apiVersion();
        boolean withOperations = version >= 3 && data.includeAuthorizedOperations();
        List<CompletableFuture<DescribedGroup>> futures = new ArrayList<>();
        for (String groupId : data.groups()) {
            futures.add(runtime.run(groupId, shard -> shard.describeGroup(groupId))
                    .handle((d, e) -> described(
                            groupId,
                            e == null
                                    ? d
                                    : ClassicApi.GroupDescription.error(
                                            groupId, GroupCoordinatorRuntime.errorOf(e), null),
                            version,
                            withOperations)));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> {
                    DescribeGroupsResponseData response = new DescribeGroupsResponseData();
                    futures.forEach(f -> response.groups().add(f.join()));
                    return response;
                });
    }

    private static DescribedGroup described(
            String groupId, ClassicApi.GroupDescription d, short version, boolean withOperations) {
        DescribedGroup g = new DescribedGroup()
                .setGroupId(groupId)
                .setAuthorizedOperations(withOperations ? ALL_GROUP_OPERATIONS : OPERATIONS_NOT_REQUESTED);
        if (d.error() == Errors.GROUP_ID_NOT_FOUND && version < FIRST_GROUP_ID_NOT_FOUND_VERSION) {
            return g.setErrorCode(Errors.NONE.code())
                    .setGroupState("Dead")
                    .setProtocolType("")
                    .setProtocolData("");
        }
        g.setErrorCode(d.error().code())
                .setErrorMessage(version >= FIRST_GROUP_ID_NOT_FOUND_VERSION ? d.errorMessage() : null)
                .setGroupState(d.state())
                .setProtocolType(d.protocolType())
                .setProtocolData(d.protocolData());
        for (ClassicApi.DescribedMember m : d.members()) {
            g.members()
                    .add(new DescribedGroupMember()
                            .setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId())
                            .setClientId(m.clientId())
                            .setClientHost(m.clientHost())
                            .setMemberMetadata(m.metadata())
                            .setMemberAssignment(m.assignment()));
        }
        return g;
    }

    CompletableFuture<ApiMessage> list(RequestContext request) {
        ListGroupsRequestData data = request.body();
        short version = request.apiVersion();
        var states = new HashSet<>(version >= 4 ? data.statesFilter() : List.of());
        var types = new HashSet<>(version >= 5 ? data.typesFilter() : List.of());
        return runtime.runOnAll(shard -> shard.listGroups(states, types)).handle((lists, e) -> {
            ListGroupsResponseData response = new ListGroupsResponseData();
            if (e != null) {
                return response.setErrorCode(GroupCoordinatorRuntime.errorOf(e).code());
            }
            for (List<ListedGroup> list : lists) {
                for (ListedGroup g : list) {
                    response.groups()
                            .add(new ListGroupsResponseData.ListedGroup()
                                    .setGroupId(g.groupId())
                                    .setProtocolType(g.protocolType())
                                    .setGroupState(g.state())
                                    .setGroupType(g.type()));
                }
            }
            return response.setErrorCode(Errors.NONE.code());
        });
    }

    CompletableFuture<ApiMessage> delete(RequestContext request) {
        DeleteGroupsRequestData data = request.body();
        Map<Integer, List<String>> byPartition = new LinkedHashMap<>();
        for (String groupId : data.groupsNames()) {
            byPartition
                    .computeIfAbsent(runtime.partitionFor(groupId), p -> new ArrayList<>())
                    .add(groupId);
        }
        Map<String, CompletableFuture<Map<String, Errors>>> futures = new HashMap<>();
        List<CompletableFuture<?>> all = new ArrayList<>();
        byPartition.forEach((partition, ids) -> {
            CompletableFuture<Map<String, Errors>> f = runtime.run(partition, shard -> shard.deleteGroups(ids))
                    .exceptionally(e -> {
                        Errors error = GroupCoordinatorRuntime.errorOf(e);
                        Map<String, Errors> failed = new HashMap<>();
                        ids.forEach(id -> failed.put(id, error));
                        return failed;
                    });
            ids.forEach(id -> futures.put(id, f));
            all.add(f);
        });
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            for (String groupId : data.groupsNames()) {
                if (response.results().find(groupId) == null) {
                    Errors error = futures.get(groupId).join().get(groupId);
                    if (error == Errors.NONE) {
                        runtime.groupDeleted(groupId);
                    }
                    // v3 (Kafka 4.4) says why; older versions drop the field
                    response.results()
                            .add(new DeletableGroupResult()
                                    .setGroupId(groupId)
                                    .setErrorCode(error.code())
                                    .setErrorMessage(error == Errors.NONE ? null : deletionFailure(error)));
                }
            }
            return response;
        });
    }

    private static String deletionFailure(Errors error) {
        return switch (error) {
            case NON_EMPTY_GROUP -> "The group has members: only an empty group can be deleted.";
            case GROUP_ID_NOT_FOUND -> "The group does not exist.";
            default -> error.message();
        };
    }
}
