package io.varve.registry.rest;

import com.sun.net.httpserver.HttpExchange;

/**
 * Who may do what in the registry: the broker authenticates a request as the Kafka listeners do (HTTP Basic against
 * their PLAIN and SCRAM users, or the client certificate) and answers from Kafka's ACLs. {@link #OPEN} lets everyone
 * do everything, as a registry without security.
 */
public interface RegistryAccess {
    /** What a request does to a subject (or, for {@link io.varve.registry.state.RegistryState#GLOBAL}, the registry). */
    enum Operation {
        /** Read a subject's versions and schemas, look a schema up, test compatibility. */
        DESCRIBE,
        /** Register a schema. */
        WRITE,
        /** Delete a version or a subject, soft or permanent. */
        DELETE,
        /** Read a compatibility level or a mode. */
        DESCRIBE_CONFIGS,
        /** Change or remove a compatibility level or a mode. */
        ALTER_CONFIGS
    }

    RegistryAccess OPEN = new RegistryAccess() {
        @Override
        public String authenticate(HttpExchange exchange) {
            return "User:ANONYMOUS";
        }

        @Override
        public boolean allowed(String principal, String host, Operation operation, String subject) {
            return true;
        }
    };

    /**
     * The principal ({@code User:alice}) that sent {@code exchange}; throws a {@link io.varve.registry.RegistryException}
     * with 401 / 40101 when its credentials are missing or wrong.
     */
    String authenticate(HttpExchange exchange);

    /** Whether {@code principal} from {@code host} may do {@code operation} on {@code subject}. */
    boolean allowed(String principal, String host, Operation operation, String subject);
}
