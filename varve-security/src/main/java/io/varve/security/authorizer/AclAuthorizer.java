package io.varve.security.authorizer;

import io.varve.security.Principal;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Decides with Kafka's StandardAuthorizer semantics over an immutable set of ACLs: a super user may do anything; any
 * DENY that covers the resource, principal (or {@code User:*}) and host (or {@code *}) for this operation or ALL wins;
 * else an ALLOW for an operation that grants this one allows; else, when no ACL at all covers the resource, {@code
 * allow.everyone.if.no.acl.found} decides; else deny. Immutable and thread safe: a new ACL set is a new authorizer.
 *
 * <p>Matching scans the ACLs of the resource type: fine for the hundreds of ACLs a cluster usually has; an index by
 * name and prefix is the next step if that stops being true.
 */
public final class AclAuthorizer {
    public static final String WILDCARD = "*";
    private static final String ANY_USER = "User:*";

    private final List<AclBinding> acls;
    private final Set<String> superUsers;
    private final boolean allowEveryoneIfNoAclFound;

    public AclAuthorizer(Collection<AclBinding> acls, Set<String> superUsers, boolean allowEveryoneIfNoAclFound) {
        this.acls = List.copyOf(acls);
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
    }

    public AclAuthorizer withAcls(Collection<AclBinding> newAcls) {
        return new AclAuthorizer(newAcls, superUsers, allowEveryoneIfNoAclFound);
    }

    public List<AclBinding> acls() {
        return acls;
    }

    public boolean isSuperUser(Principal principal) {
        return superUsers.contains(principal.toString());
    }

    public boolean authorize(
            Principal principal, String host, AclOperation operation, ResourceType type, String resourceName) {
        if (isSuperUser(principal)) {
            return true;
        }
        String who = principal.toString();
        Set<AclOperation> granting = operation.allowedBy();
        boolean anyAclCoversResource = false;
        boolean allowed = false;
        for (AclBinding acl : acls) {
            if (!acl.covers(type, resourceName)) {
                continue;
            }
            anyAclCoversResource = true;
            if (!(acl.principal().equals(who) || acl.principal().equals(ANY_USER))
                    || !(acl.host().equals(WILDCARD) || acl.host().equals(host))) {
                continue;
            }
            if (acl.permission() == AclPermission.DENY
                    && (acl.operation() == operation || acl.operation() == AclOperation.ALL)) {
                return false;
            }
            if (acl.permission() == AclPermission.ALLOW && granting.contains(acl.operation())) {
                allowed = true;
            }
        }
        return allowed || (!anyAclCoversResource && allowEveryoneIfNoAclFound);
    }

    /**
     * True when {@code principal} may do {@code operation} on at least one resource of {@code type} (Kafka's
     * authorizeByResourceType: an idempotent producer without IDEMPOTENT_WRITE needs WRITE on some topic). A DENY on
     * the wildcard or on a prefix does not make it false unless nothing else allows.
     */
    public boolean authorizeAny(Principal principal, String host, AclOperation operation, ResourceType type) {
        if (isSuperUser(principal)) {
            return true;
        }
        String who = principal.toString();
        Set<AclOperation> granting = operation.allowedBy();
        for (AclBinding acl : acls) {
            if (acl.resourceType() == type
                    && acl.permission() == AclPermission.ALLOW
                    && granting.contains(acl.operation())
                    && (acl.principal().equals(who) || acl.principal().equals(ANY_USER))
                    && (acl.host().equals(WILDCARD) || acl.host().equals(host))
                    && authorize(principal, host, operation, type, acl.resourceName())) {
                return true;
            }
        }
        return false;
    }
}
