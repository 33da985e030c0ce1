package io.varve.security.authorizer;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.security.Principal;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AclAuthorizerTest {
    private static final Principal ALICE = Principal.user("alice");
    private static final Principal BOB = Principal.user("bob");

    private static AclBinding acl(
            ResourceType type, String name, PatternType pattern, String who, AclOperation op, AclPermission perm) {
        return new AclBinding(type, name, pattern, who, "*", op, perm);
    }

    private static AclBinding allow(ResourceType type, String name, String who, AclOperation op) {
        return acl(type, name, PatternType.LITERAL, who, op, AclPermission.ALLOW);
    }

    @Test
    void anAllowGrantsItsOperationAndTheOnesItImplies() {
        AclAuthorizer authorizer = new AclAuthorizer(
                List.of(allow(ResourceType.TOPIC, "orders", "User:alice", AclOperation.WRITE)), Set.of(), false);
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.WRITE, ResourceType.TOPIC, "orders"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.DESCRIBE, ResourceType.TOPIC, "orders"))
                .as("WRITE implies DESCRIBE")
                .isTrue();
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(authorizer.authorize(BOB, "10.0.0.1", AclOperation.WRITE, ResourceType.TOPIC, "orders"))
                .isFalse();
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.WRITE, ResourceType.TOPIC, "other"))
                .isFalse();
    }

    @Test
    void denyWinsOverAllowAndCoversAll() {
        AclAuthorizer authorizer = new AclAuthorizer(
                List.of(
                        allow(ResourceType.TOPIC, "*", "User:*", AclOperation.ALL),
                        acl(
                                ResourceType.TOPIC,
                                "secret",
                                PatternType.PREFIXED,
                                "User:bob",
                                AclOperation.READ,
                                AclPermission.DENY)),
                Set.of(),
                false);
        assertThat(authorizer.authorize(BOB, "h", AclOperation.READ, ResourceType.TOPIC, "secret-salaries"))
                .isFalse();
        assertThat(authorizer.authorize(BOB, "h", AclOperation.DESCRIBE, ResourceType.TOPIC, "secret-salaries"))
                .as("a DENY of READ does not deny DESCRIBE")
                .isTrue();
        assertThat(authorizer.authorize(BOB, "h", AclOperation.READ, ResourceType.TOPIC, "public"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, "h", AclOperation.READ, ResourceType.TOPIC, "secret-salaries"))
                .isTrue();
    }

    @Test
    void prefixedAclsCoverEveryNameStartingWithThePrefixAndHostsMustMatch() {
        AclAuthorizer authorizer = new AclAuthorizer(
                List.of(new AclBinding(
                        ResourceType.GROUP,
                        "app-",
                        PatternType.PREFIXED,
                        "User:alice",
                        "10.0.0.1",
                        AclOperation.READ,
                        AclPermission.ALLOW)),
                Set.of(),
                false);
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.GROUP, "app-1"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, "10.0.0.2", AclOperation.READ, ResourceType.GROUP, "app-1"))
                .isFalse();
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.GROUP, "ap"))
                .isFalse();
        assertThat(authorizer.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "app-1"))
                .isFalse();
    }

    @Test
    void superUsersMayDoAnythingAndNoAclFoundFollowsTheSwitch() {
        AclAuthorizer strict = new AclAuthorizer(
                List.of(acl(
                        ResourceType.TOPIC,
                        "t",
                        PatternType.LITERAL,
                        "User:admin",
                        AclOperation.ALL,
                        AclPermission.DENY)),
                Set.of("User:admin"),
                false);
        assertThat(strict.authorize(
                        Principal.user("admin"), "h", AclOperation.ALTER, ResourceType.CLUSTER, "kafka-cluster"))
                .isTrue();
        assertThat(strict.authorize(Principal.user("admin"), "h", AclOperation.READ, ResourceType.TOPIC, "t"))
                .as("super users are not subject to DENY")
                .isTrue();
        assertThat(strict.authorize(ALICE, "h", AclOperation.READ, ResourceType.TOPIC, "no-acls"))
                .isFalse();
        AclAuthorizer open = new AclAuthorizer(strict.acls(), Set.of(), true);
        assertThat(open.authorize(ALICE, "h", AclOperation.READ, ResourceType.TOPIC, "no-acls"))
                .isTrue();
        assertThat(open.authorize(ALICE, "h", AclOperation.READ, ResourceType.TOPIC, "t"))
                .as("an ACL exists for t, so the switch does not apply")
                .isFalse();
    }

    @Test
    void authorizeAnyFindsOneResourceOfTheType() {
        AclAuthorizer authorizer = new AclAuthorizer(
                List.of(allow(ResourceType.TOPIC, "orders", "User:alice", AclOperation.WRITE)), Set.of(), false);
        assertThat(authorizer.authorizeAny(ALICE, "h", AclOperation.WRITE, ResourceType.TOPIC))
                .isTrue();
        assertThat(authorizer.authorizeAny(BOB, "h", AclOperation.WRITE, ResourceType.TOPIC))
                .isFalse();
    }

    @Test
    void filtersMatchAsDescribeAndDeleteAclsNeed() {
        AclBinding prefixed = acl(
                ResourceType.TOPIC, "app-", PatternType.PREFIXED, "User:alice", AclOperation.READ, AclPermission.ALLOW);
        AclBinding wildcard = allow(ResourceType.TOPIC, "*", "User:bob", AclOperation.WRITE);
        AclFilter match = new AclFilter(
                ResourceType.TOPIC, "app-orders", PatternType.MATCH, null, null, AclOperation.ANY, AclPermission.ANY);
        assertThat(match.matches(prefixed)).isTrue();
        assertThat(match.matches(wildcard)).isTrue();
        AclFilter literal = new AclFilter(
                ResourceType.ANY, "app-", PatternType.ANY, "User:alice", null, AclOperation.READ, AclPermission.ANY);
        assertThat(literal.matches(prefixed)).isTrue();
        assertThat(literal.matches(wildcard)).isFalse();
    }
}
