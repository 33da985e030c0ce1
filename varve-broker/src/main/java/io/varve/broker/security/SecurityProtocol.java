package io.varve.broker.security;

import java.util.Locale;
import java.util.Optional;

/** Kafka's security protocols, as {@code listener.security.protocol.map} names them. */
public enum SecurityProtocol {
    PLAINTEXT(false, false),
    SSL(true, false),
    SASL_PLAINTEXT(false, true),
    SASL_SSL(true, true);

    private final boolean tls;
    private final boolean sasl;

    SecurityProtocol(boolean tls, boolean sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    public boolean tls() {
        return tls;
    }

    public boolean sasl() {
        return sasl;
    }

    public static Optional<SecurityProtocol> forName(String name) {
        try {
            return Optional.of(valueOf(name.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
