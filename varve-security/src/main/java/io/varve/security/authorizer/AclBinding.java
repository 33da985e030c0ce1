package io.varve.security.authorizer;

import java.util.Objects;

/**
 * One ACL: {@code principal} from {@code host} may (ALLOW) or may not (DENY) do {@code operation} on the resources
 * {@code resourceType} / {@code resourceName} / {@code patternType} names. {@code principal} is {@code Type:name} or
 * {@code User:*}; {@code host} an address or {@code *}.
 */
public record AclBinding(
        ResourceType resourceType,
        String resourceName,
        PatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermission permission) {

    public AclBinding {
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(host, "host");
    }

    /** True for a resource of this type and name. */
    boolean covers(ResourceType type, String name) {
        if (resourceType != type) {
            return false;
        }
        return switch (patternType) {
            case LITERAL -> resourceName.equals(AclAuthorizer.WILDCARD) || resourceName.equals(name);
            case PREFIXED -> name.startsWith(resourceName);
            default -> false;
        };
    }
}
