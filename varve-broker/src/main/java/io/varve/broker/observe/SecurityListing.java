package io.varve.broker.observe;

import static io.varve.broker.observe.ConsoleRequests.check;

import io.varve.http.view.AclEntry;
import io.varve.http.view.ClientQuota;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.ScramUser;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.AclPermission;
import io.varve.security.authorizer.PatternType;
import io.varve.security.authorizer.ResourceType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DescribeAclsRequestData;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The security pages' requests: DescribeAcls, CreateAcls and DeleteAcls (which the broker forwards to the
 * controller), DescribeUserScramCredentials (names, mechanisms and iterations only: the API carries no secret), and
 * DescribeClientQuotas.
 */
final class SecurityListing {
    private static final byte ANY = 1;

    private final ConsoleRequests requests;

    SecurityListing(ConsoleRequests requests) {
        this.requests = requests;
    }

    CompletableFuture<List<AclEntry>> acls() {
        DescribeAclsRequestData request = new DescribeAclsRequestData()
                .setResourceTypeFilter(ANY)
                .setResourceNameFilter(null)
                .setPatternTypeFilter(ANY)
                .setPrincipalFilter(null)
                .setHostFilter(null)
                .setOperation(ANY)
                .setPermissionType(ANY);
        return requests.apis
                .<DescribeAclsResponseData>call(ApiKeys.DESCRIBE_ACLS, request, requests.client)
                .thenApply(response -> {
                    check(Errors.forCode(response.errorCode()), response.errorMessage(), "Listing ACLs");
                    List<AclEntry> out = new ArrayList<>();
                    for (DescribeAclsResponseData.DescribeAclsResource r : response.resources()) {
                        for (DescribeAclsResponseData.AclDescription a : r.acls()) {
                            out.add(new AclEntry(
                                    name(ResourceType.forCode(r.resourceType()), r.resourceType()),
                                    r.resourceName(),
                                    name(PatternType.forCode(r.patternType()), r.patternType()),
                                    a.principal(),
                                    a.host(),
                                    name(AclOperation.forCode(a.operation()), a.operation()),
                                    name(AclPermission.forCode(a.permissionType()), a.permissionType())));
                        }
                    }
                    out.sort(java.util.Comparator.comparing(AclEntry::resourceType)
                            .thenComparing(AclEntry::resourceName)
                            .thenComparing(AclEntry::principal)
                            .thenComparing(AclEntry::operation));
                    return out;
                });
    }

    CompletableFuture<Void> create(AclEntry acl) {
        Codes c = codes(acl);
        CreateAclsRequestData request = new CreateAclsRequestData();
        request.creations()
                .add(new CreateAclsRequestData.AclCreation()
                        .setResourceType(c.type)
                        .setResourceName(acl.resourceName())
                        .setResourcePatternType(c.pattern)
                        .setPrincipal(acl.principal())
                        .setHost(acl.host())
                        .setOperation(c.operation)
                        .setPermissionType(c.permission));
        return requests.apis
                .<CreateAclsResponseData>call(ApiKeys.CREATE_ACLS, request, requests.client)
                .thenAccept(response -> {
                    var r = response.results().get(0);
                    check(Errors.forCode(r.errorCode()), r.errorMessage(), "Creating the ACL");
                });
    }

    CompletableFuture<Void> delete(AclEntry acl) {
        Codes c = codes(acl);
        DeleteAclsRequestData request = new DeleteAclsRequestData();
        request.filters()
                .add(new DeleteAclsRequestData.DeleteAclsFilter()
                        .setResourceTypeFilter(c.type)
                        .setResourceNameFilter(acl.resourceName())
                        .setPatternTypeFilter(c.pattern)
                        .setPrincipalFilter(acl.principal())
                        .setHostFilter(acl.host())
                        .setOperation(c.operation)
                        .setPermissionType(c.permission));
        return requests.apis
                .<DeleteAclsResponseData>call(ApiKeys.DELETE_ACLS, request, requests.client)
                .thenAccept(response -> {
                    var r = response.filterResults().get(0);
                    check(Errors.forCode(r.errorCode()), r.errorMessage(), "Deleting the ACL");
                    if (r.matchingAcls().isEmpty()) {
                        throw new ConsoleFailure(404, "No ACL matches " + acl + ".");
                    }
                });
    }

    CompletableFuture<List<ScramUser>> scramUsers() {
        DescribeUserScramCredentialsRequestData request = new DescribeUserScramCredentialsRequestData().setUsers(null);
        return requests.apis
                .<DescribeUserScramCredentialsResponseData>call(
                        ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, request, requests.client)
                .thenApply(response -> {
                    check(Errors.forCode(response.errorCode()), response.errorMessage(), "Listing SCRAM users");
                    List<ScramUser> out = new ArrayList<>();
                    for (var r : response.results()) {
                        List<ScramUser.Credential> credentials = new ArrayList<>();
                        for (var info : r.credentialInfos()) {
                            credentials.add(new ScramUser.Credential(
                                    info.mechanism() == 1
                                            ? "SCRAM-SHA-256"
                                            : info.mechanism() == 2 ? "SCRAM-SHA-512" : "UNKNOWN",
                                    info.iterations()));
                        }
                        out.add(new ScramUser(r.user(), credentials));
                    }
                    out.sort(java.util.Comparator.comparing(ScramUser::name));
                    return out;
                });
    }

    CompletableFuture<List<ClientQuota>> clientQuotas() {
        DescribeClientQuotasRequestData request = new DescribeClientQuotasRequestData().setStrict(false);
        return requests.apis
                .<DescribeClientQuotasResponseData>call(ApiKeys.DESCRIBE_CLIENT_QUOTAS, request, requests.client)
                .thenApply(response -> {
                    check(Errors.forCode(response.errorCode()), response.errorMessage(), "Listing client quotas");
                    List<ClientQuota> out = new ArrayList<>();
                    if (response.entries() == null) {
                        return out;
                    }
                    for (var e : response.entries()) {
                        StringBuilder entity = new StringBuilder();
                        for (var part : e.entity()) {
                            entity.append(entity.length() == 0 ? "" : ", ")
                                    .append(part.entityType())
                                    .append('=')
                                    .append(part.entityName() == null ? "<default>" : part.entityName());
                        }
                        Map<String, Double> values = new LinkedHashMap<>();
                        e.values().forEach(v -> values.put(v.key(), v.value()));
                        out.add(new ClientQuota(entity.toString(), values));
                    }
                    out.sort(java.util.Comparator.comparing(ClientQuota::entity));
                    return out;
                });
    }

    private record Codes(byte type, byte pattern, byte operation, byte permission) {}

    /** The wire codes of {@code acl}'s names; 400 naming the field when one is not a name Kafka knows. */
    private static Codes codes(AclEntry acl) {
        return new Codes(
                named(ResourceType.class, acl.resourceType(), "resource type").code(),
                named(PatternType.class, acl.patternType(), "pattern type").code(),
                named(AclOperation.class, acl.operation(), "operation").code(),
                named(AclPermission.class, acl.permission(), "permission").code());
    }

    private static <E extends Enum<E>> E named(Class<E> type, String name, String field) {
        try {
            return Enum.valueOf(type, name == null ? "" : name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConsoleFailure(400, "Unknown " + field + " '" + name + "'.");
        }
    }

    private static String name(java.util.Optional<? extends Enum<?>> known, byte code) {
        return known.map(Enum::name).orElse("UNKNOWN(" + code + ")");
    }
}
