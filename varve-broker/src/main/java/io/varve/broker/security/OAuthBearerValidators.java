package io.varve.broker.security;

import io.varve.security.oauthbearer.JwtValidator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * The token validators of the listeners that enable OAUTHBEARER, each over the JWK set of its endpoint (listeners that
 * name the same endpoint share one refresher). Owns the one thread that reads the sets.
 */
public final class OAuthBearerValidators implements AutoCloseable {
    private final Map<String, JwtValidator> byListener = new HashMap<>();
    private final ScheduledExecutorService scheduler;

    private OAuthBearerValidators(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /** Null when no listener enables OAUTHBEARER; otherwise reads every JWK set once before returning. */
    public static OAuthBearerValidators start(
            SecurityConfig security, Iterable<String> listenerNames, LongSupplier wallClockMs) {
        OAuthBearerValidators validators = null;
        Map<OAuthBearerSettings, JwksRefresher> refreshers = new HashMap<>();
        for (String listener : listenerNames) {
            ListenerSecurity.Sasl sasl = security.forListener(listener).sasl();
            if (sasl == null || sasl.oauthBearer() == null) {
                continue;
            }
            if (validators == null) {
                validators = new OAuthBearerValidators(Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread thread = new Thread(r, "varve-jwks-refresh");
                    thread.setDaemon(true);
                    return thread;
                }));
            }
            OAuthBearerSettings settings = sasl.oauthBearer();
            ScheduledExecutorService scheduler = validators.scheduler;
            JwksRefresher refresher = refreshers.computeIfAbsent(settings, s -> {
                JwksRefresher r = new JwksRefresher(s, scheduler);
                r.start();
                return r;
            });
            validators.byListener.put(
                    listener, new JwtValidator(settings.token(), refresher, wallClockMs, refresher::expedite));
        }
        return validators;
    }

    /** The validator of an OAUTHBEARER listener. */
    public JwtValidator forListener(String listenerName) {
        JwtValidator validator = byListener.get(listenerName);
        if (validator == null) {
            throw new IllegalStateException("listener " + listenerName + " does not enable OAUTHBEARER");
        }
        return validator;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
