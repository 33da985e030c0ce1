package io.varve.broker.api.security;

import io.varve.broker.security.BrokerAuthorizer;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.security.authorizer.AclBinding;
import io.varve.security.authorizer.AclFilter;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.AclPermission;
import io.varve.security.authorizer.PatternType;
import io.varve.security.authorizer.ResourceType;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The checks Kafka makes on the fields of a new ACL and of an ACL filter (INVALID_REQUEST with a message when they
 * fail), and the conversions between the wire's codes, metadata records and the authorizer's types.
 */
final class AclFields {

    /** Why a new ACL is invalid, or empty when it is valid. */
    static Optional<String> invalidAcl(
            byte resourceType, String name, byte patternType, String principal, String host, byte op, byte perm) {
        Optional<ResourceType> type = ResourceType.forCode(resourceType).filter(t -> t != ResourceType.ANY);
        if (type.isEmpty()) {
            return Optional.of("Invalid resource type " + resourceType);
        }
        if (PatternType.forCode(patternType)
                .filter(p -> p == PatternType.LITERAL || p == PatternType.PREFIXED)
                .isEmpty()) {
            return Optional.of("Invalid pattern type " + patternType + ": an ACL is LITERAL or PREFIXED");
        }
        if (name == null || name.isEmpty()) {
            return Optional.of("Resource name must not be empty");
        }
        if (type.get() == ResourceType.CLUSTER && !name.equals(BrokerAuthorizer.CLUSTER_NAME)) {
            return Optional.of("The only valid name for the CLUSTER resource is " + BrokerAuthorizer.CLUSTER_NAME);
        }
        if (principal == null || principal.indexOf(':') <= 0) {
            return Optional.of("Invalid principal '" + principal + "': expected Type:name");
        }
        if (host == null || host.isEmpty()) {
            return Optional.of("Invalid host: use * for any host");
        }
        if (AclOperation.forCode(op).filter(o -> o != AclOperation.ANY).isEmpty()) {
            return Optional.of("Invalid operation " + op);
        }
        if (AclPermission.forCode(perm).filter(p -> p != AclPermission.ANY).isEmpty()) {
            return Optional.of("Invalid permission type " + perm);
        }
        return Optional.empty();
    }

    /** The filter, or empty when one of its codes is not one of the protocol's. */
    static Optional<AclFilter> filter(
            byte resourceType, String name, byte patternType, String principal, String host, byte op, byte perm) {
        Optional<ResourceType> type = ResourceType.forCode(resourceType);
        Optional<PatternType> pattern = PatternType.forCode(patternType);
        Optional<AclOperation> operation = AclOperation.forCode(op);
        Optional<AclPermission> permission = AclPermission.forCode(perm);
        if (type.isEmpty() || pattern.isEmpty() || operation.isEmpty() || permission.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new AclFilter(type.get(), name, pattern.get(), principal, host, operation.get(), permission.get()));
    }

    static AclBinding binding(AccessControlEntryRecord r) {
        return new AclBinding(
                ResourceType.forCode(r.resourceType()).orElseThrow(),
                r.resourceName(),
                PatternType.forCode(r.patternType()).orElseThrow(),
                r.principal(),
                r.host(),
                AclOperation.forCode(r.operation()).orElseThrow(),
                AclPermission.forCode(r.permission()).orElseThrow());
    }

    static AccessControlEntryRecord record(
            byte resourceType, String name, byte patternType, String principal, String host, byte op, byte perm) {
        return new AccessControlEntryRecord(
                Uuid.randomUuid(), resourceType, name, patternType, principal, host, op, perm);
    }

    private AclFields() {}
}
