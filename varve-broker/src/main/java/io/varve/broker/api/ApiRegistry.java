package io.varve.broker.api;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker implements, with the version range it handles and the range it advertises.
 * Advertised and handled ranges differ only where Kafka documents a quirk (Produce, KAFKA-18659).
 */
public final class ApiRegistry {

    /** {@code advertisedMin <= minVersion <= maxVersion}; requests below {@code minVersion} are refused. */
    public record Api(ApiKeys key, short advertisedMin, short minVersion, short maxVersion, ApiHandler handler) {
        public boolean handles(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    private final Map<ApiKeys, Api> apis = new EnumMap<>(ApiKeys.class);

    public ApiRegistry register(ApiKeys key, int minVersion, int maxVersion, ApiHandler handler) {
        return register(key, minVersion, minVersion, maxVersion, handler);
    }

    public ApiRegistry register(ApiKeys key, int advertisedMin, int minVersion, int maxVersion, ApiHandler handler) {
        if (minVersion < key.oldestVersion() || maxVersion > key.latestVersion(true) || advertisedMin > minVersion) {
            throw new IllegalArgumentException(
                    key + " range " + minVersion + ".." + maxVersion + " is outside what the protocol classes know ("
                            + key.oldestVersion() + ".." + key.latestVersion(true) + ")");
        }
        if (apis.put(key, new Api(key, (short) advertisedMin, (short) minVersion, (short) maxVersion, handler))
                != null) {
            throw new IllegalStateException(key + " registered twice");
        }
        return this;
    }

    public Api get(ApiKeys key) {
        return apis.get(key);
    }

    public Collection<Api> all() {
        return Collections.unmodifiableCollection(apis.values());
    }
}
