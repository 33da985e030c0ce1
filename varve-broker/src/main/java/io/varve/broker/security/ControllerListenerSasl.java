package io.varve.broker.security;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.api.KafkaRequestDispatcher;
import io.varve.broker.config.ListenerConfig;
import io.varve.broker.network.RequestDispatcher;
import io.varve.security.sasl.AuthenticationFailureDelay;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The SASL exchange of a controller's SASL listener, served from the moment the listener is bound, before the
 * controller's other APIs (Raft between the voters needs it first). PLAIN only (the config refuses other mechanisms
 * there): SCRAM's credentials live in the very log this listener serves. Its exchanges are cheap, so they run on the
 * network thread.
 */
public final class ControllerListenerSasl {

    /** The dispatcher of SaslHandshake and SaslAuthenticate for {@code listeners}; null when none speaks SASL. */
    public static RequestDispatcher dispatcher(SecurityConfig security, List<ListenerConfig> listeners) {
        boolean anySasl = listeners.stream()
                .anyMatch(l -> security.forListener(l.name()).protocol().sasl());
        if (!anySasl) {
            return null;
        }
        SaslAuthenticator authenticator = new SaslAuthenticator(
                security,
                (user, mechanism) -> Optional.empty(),
                new AuthenticationFailureDelay(
                        security.failedAuthenticationDelayMs(),
                        10_000,
                        () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime())),
                null);
        ApiRegistry registry = new ApiRegistry();
        SaslApis.register(registry);
        // no ApiVersions here (the controller's APIs answer it once installed), so the handler is never needed
        return new KafkaRequestDispatcher(registry, null, Runnable::run, null, authenticator, null);
    }

    private ControllerListenerSasl() {}
}
