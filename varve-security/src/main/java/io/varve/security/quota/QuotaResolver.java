package io.varve.security.quota;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which quota applies to a request, as Kafka resolves it: the first of these entities that sets the key, most specific
 * first —
 *
 * <ol>
 *   <li>user and client-id; user and the default client-id; the user alone;
 *   <li>the default user and the client-id; the default user and the default client-id; the default user alone;
 *   <li>the client-id alone; the default client-id alone.
 * </ol>
 *
 * The quota is shared by everything the matching entity covers: a quota of {@code user=alice} is one rate for all of
 * alice's clients, one of the default user is one rate per user. {@link Resolved#userTag()} and {@link
 * Resolved#clientIdTag()} name that rate (empty where the entity does not constrain). Pure.
 */
public final class QuotaResolver {
    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";

    /** One resolved quota: its bound, and the (user, client-id) pair whose rate it limits. */
    public record Resolved(String userTag, String clientIdTag, double bound) {}

    private final Function<Map<String, String>, Map<String, Double>> quotasOf;

    /** @param quotasOf the quota keys and values of exactly one entity (a null name is the type's default) */
    public QuotaResolver(Function<Map<String, String>, Map<String, Double>> quotasOf) {
        this.quotasOf = quotasOf;
    }

    /** The quota of {@code key} for this user and client id, if any entity sets it. */
    public Optional<Resolved> resolve(String user, String clientId, String key) {
        // {user name or null for the default, client id or null, and which of the two the entity has}
        Object[][] order = {
            {user, clientId, true, true},
            {user, null, true, true},
            {user, null, true, false},
            {null, clientId, true, true},
            {null, null, true, true},
            {null, null, true, false},
            {null, clientId, false, true},
            {null, null, false, true},
        };
        for (Object[] o : order) {
            boolean hasUser = (Boolean) o[2];
            boolean hasClient = (Boolean) o[3];
            Map<String, String> entity = new HashMap<>();
            if (hasUser) {
                entity.put(USER, (String) o[0]);
            }
            if (hasClient) {
                entity.put(CLIENT_ID, (String) o[1]);
            }
            Double bound = quotasOf.apply(entity).get(key);
            if (bound != null) {
                return Optional.of(new Resolved(hasUser ? user : "", hasClient ? clientId : "", bound));
            }
        }
        return Optional.empty();
    }
}
