package io.varve.registry.rest;

import com.sun.net.httpserver.HttpExchange;
import io.varve.registry.RegistryException;
import io.varve.registry.rest.RegistryAccess.Operation;
import io.varve.registry.state.RegistryState;
import java.util.List;
import java.util.Locale;

/** One request's principal and the checks {@link Routes} makes with it: 403 / 40301 for what it may not do. */
final class Guard {
    private final RegistryAccess access;
    private final String principal;
    private final String host;

    private Guard(RegistryAccess access, String principal, String host) {
        this.access = access;
        this.principal = principal;
        this.host = host;
    }

    /** Authenticates {@code exchange} (401 / 40101 when it cannot be). */
    static Guard of(RegistryAccess access, HttpExchange exchange) {
        String principal = access.authenticate(exchange);
        String host = exchange.getRemoteAddress() == null
                        || exchange.getRemoteAddress().getAddress() == null
                ? ""
                : exchange.getRemoteAddress().getAddress().getHostAddress();
        return new Guard(access, principal, host);
    }

    void require(Operation operation, String subject) {
        if (!access.allowed(principal, host, operation, subject)) {
            String what = subject.equals(RegistryState.GLOBAL) ? "the global settings" : "Subject: " + subject;
            throw new RegistryException(
                    403, 40301, "User " + principal + " is denied operation " + name(operation) + " on " + what);
        }
    }

    boolean mayDescribe(String subject) {
        return access.allowed(principal, host, Operation.DESCRIBE, subject);
    }

    List<String> describable(List<String> subjects) {
        return subjects.stream().filter(this::mayDescribe).toList();
    }

    private static String name(Operation operation) {
        String lower = operation.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        return Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    }
}
