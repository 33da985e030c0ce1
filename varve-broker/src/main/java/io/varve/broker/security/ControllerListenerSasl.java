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
 * controller's other APIs (Raft between the voters needs it first). PLAIN and OAUTHBEARER only (the config refuses
 * SCRAM there): SCRAM's credentials live in the very log this listener serves, while PLAIN's users are in the JAAS
 * entry and OAUTHBEARER's keys at the JWKS endpoint. Its exchanges are cheap, so they run on the
 * network thread.
 */
public final class ControllerListenerSasl {

    /** The dispatcher of SaslHandshake and SaslAuthenticate for {@code listeners}; null when none speaks SASL. */
    public static RequestDispatcher dispatcher(SecurityConfig security, List<ListenerConfig> listeners) {
        return dispatcher(security, listeners, null);
    }

    /** As above; {@code oauthBearer}: the validators of those that enable OAUTHBEARER (null when none does). */
    public static RequestDispatcher dispatcher(
            SecurityConfig security, List<ListenerConfig> listeners, OAuthBearerValidators oauthBearer) {
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
                oauthBearer);
        ApiRegistry registry = new ApiRegistry();
        SaslApis.register(registry);
        // no ApiVersions here (the controller's APIs answer it once installed), so the handler is never needed
        return new KafkaRequestDispatcher(registry, null, Runnable::run, null, authenticator, null);
    }

    private ControllerListenerSasl() {}
}
