package io.varve.broker.security;

import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.AclsImage;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.security.authorizer.AclAuthorizer;
import io.varve.security.authorizer.AclBinding;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.AclPermission;
import io.varve.security.authorizer.PatternType;
import io.varve.security.authorizer.ResourceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;

/**
 * The broker's authorizer: {@link AclAuthorizer} over the ACLs of the current metadata image (so every broker
 * enforces the same set, and a change applies as soon as the broker has replayed it), with {@code super.users} and
 * {@code allow.everyone.if.no.acl.found}. Rebuilt only when the image's ACLs change.
 */
public final class BrokerAuthorizer {
    public static final String CLUSTER_NAME = "kafka-cluster";

    private final Supplier<MetadataImage> image;
    private final Set<String> superUsers;
    private final boolean allowEveryoneIfNoAclFound;
    private volatile Cached cached;

    private record Cached(AclsImage acls, AclAuthorizer authorizer) {}

    public BrokerAuthorizer(Supplier<MetadataImage> image, Set<String> superUsers, boolean allowEveryoneIfNoAclFound) {
        this.image = image;
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
    }

    public MetadataImage image() {
        return image.get();
    }

    AclAuthorizer current() {
        AclsImage acls = image.get().acls();
        Cached c = cached;
        if (c == null || c.acls() != acls) {
            List<AclBinding> bindings = new ArrayList<>();
            acls.acls().values().forEach(r -> toBinding(r, bindings));
            c = new Cached(acls, new AclAuthorizer(bindings, superUsers, allowEveryoneIfNoAclFound));
            cached = c;
        }
        return c.authorizer();
    }

    private static void toBinding(AccessControlEntryRecord r, List<AclBinding> out) {
        ResourceType type = ResourceType.forCode(r.resourceType()).orElse(null);
        PatternType pattern = PatternType.forCode(r.patternType()).orElse(null);
        AclOperation op = AclOperation.forCode(r.operation()).orElse(null);
        AclPermission permission = AclPermission.forCode(r.permission()).orElse(null);
        if (type != null && pattern != null && op != null && permission != null) {
            out.add(new AclBinding(type, r.resourceName(), pattern, r.principal(), r.host(), op, permission));
        }
    }

    public boolean authorize(RequestContext request, AclOperation op, ResourceType type, String name) {
        return current().authorize(request.principal(), host(request), op, type, name);
    }

    /** For callers outside the Kafka protocol (the schema registry's and HTTP listeners), with a principal and a host. */
    public boolean authorize(
            io.varve.security.Principal principal, String host, AclOperation op, ResourceType type, String name) {
        return current().authorize(principal, host, op, type, name);
    }

    public boolean authorizeCluster(RequestContext request, AclOperation op) {
        return authorize(request, op, ResourceType.CLUSTER, CLUSTER_NAME);
    }

    public boolean authorizeAny(RequestContext request, AclOperation op, ResourceType type) {
        return current().authorizeAny(request.principal(), host(request), op, type);
    }

    /** A topic's name by id from the image; null when unknown (the handler answers UNKNOWN_TOPIC_ID). */
    public String topicName(Uuid id) {
        var topic = image.get().topics().getTopic(id);
        return topic == null ? null : topic.name();
    }

    public boolean topicExists(String name) {
        return image.get().topics().getTopic(name) != null;
    }

    private static String host(RequestContext request) {
        if (request.clientAddress() == null) {
            return "";
        }
        return request.clientAddress().getAddress() != null
                ? request.clientAddress().getAddress().getHostAddress()
                : request.clientAddress().getHostString();
    }
}
