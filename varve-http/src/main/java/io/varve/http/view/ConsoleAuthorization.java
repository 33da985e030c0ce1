package io.varve.http.view;

/**
 * The broker's ACL check, for the console: whether a request's principal ({@link io.varve.http.HttpRequest#principal()},
 * from the address {@link io.varve.http.HttpRequest#remoteHost()}) may do an operation on a resource, decided by the
 * same authorizer and ACLs as the Kafka API. A page or action it refuses answers 403. Names are Kafka's: operations
 * {@code READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS, …}, resource types {@code
 * TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID, …} (the cluster's name is {@code kafka-cluster}).
 */
@FunctionalInterface
public interface ConsoleAuthorization {
    boolean allowed(String principal, String remoteHost, String operation, String resourceType, String resourceName);

    /** A broker without an authorizer: everything is allowed, as on its Kafka listeners. */
    ConsoleAuthorization ALLOW_ALL = (principal, host, operation, type, name) -> true;
}
