package io.varve.metadata.record;

import java.util.Objects;

/** One listener of a broker, as advertised to clients. */
public record Endpoint(String listenerName, String host, int port, String securityProtocol) {

    public Endpoint {
        Objects.requireNonNull(listenerName, "listenerName");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(securityProtocol, "securityProtocol");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }
}
