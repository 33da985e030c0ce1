package io.varve.security.authorizer;

/**
 * Which ACLs DescribeAcls lists and DeleteAcls removes: each field matches anything when it is null or ANY, else
 * exactly; a MATCH pattern type matches the ACLs that apply to a resource named {@code resourceName} (its literal
 * name, the {@code *} wildcard, and prefixes of it).
 */
public record AclFilter(
        ResourceType resourceType,
        String resourceName,
        PatternType patternType,
        String principal,
        String host,
        AclOperation operation,
        AclPermission permission) {

    public boolean matches(AclBinding acl) {
        if (resourceType != ResourceType.ANY && resourceType != acl.resourceType()) {
            return false;
        }
        if (patternType == PatternType.MATCH) {
            if (resourceName != null && !acl.covers(acl.resourceType(), resourceName)) {
                return false;
            }
        } else {
            if (patternType != PatternType.ANY && patternType != acl.patternType()) {
                return false;
            }
            if (resourceName != null && !resourceName.equals(acl.resourceName())) {
                return false;
            }
        }
        return (principal == null || principal.equals(acl.principal()))
                && (host == null || host.equals(acl.host()))
                && (operation == AclOperation.ANY || operation == acl.operation())
                && (permission == AclPermission.ANY || permission == acl.permission());
    }
}
