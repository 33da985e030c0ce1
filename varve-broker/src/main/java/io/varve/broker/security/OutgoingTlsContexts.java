package io.varve.broker.security;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Where a keystore reload reaches the broker's own connections: each client of another node's listener (fetchers,
 * the controller channel, Raft, transaction peers) registers how it takes new TLS settings for that listener, and
 * {@link KeystoreReloader} hands them the reloaded settings along with the listener's server side, so new connections
 * present the new certificate and trust the new truststore while open ones keep theirs, as Kafka's inter-broker
 * clients do. One per broker (held by its {@link SecurityConfig}); clients register at start-up.
 */
public final class OutgoingTlsContexts {
    private final Map<String, List<Consumer<ListenerSecurity.Tls>>> byListener = new ConcurrentHashMap<>();

    /** {@code reload} receives the TLS settings of connections to {@code listenerName} after each reload. */
    public void register(String listenerName, Consumer<ListenerSecurity.Tls> reload) {
        byListener
                .computeIfAbsent(listenerName, l -> new CopyOnWriteArrayList<>())
                .add(reload);
    }

    /** Hands {@code next} to every client of {@code listenerName}. */
    void reloaded(String listenerName, ListenerSecurity.Tls next) {
        byListener.getOrDefault(listenerName, List.of()).forEach(c -> c.accept(next));
    }

    /** How many clients of {@code listenerName} take reloads (for tests and the reload's log line). */
    int clients(String listenerName) {
        return byListener.getOrDefault(listenerName, List.of()).size();
    }
}
