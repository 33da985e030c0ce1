package io.varve.broker.quota;

import io.varve.broker.network.ConnectionAdmission;
import io.varve.metadata.controller.quota.ClientQuotaKeys;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.quota.QuotaManager;
import io.varve.security.quota.QuotaResolver;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * Connection creation rates (KIP-612): a listener's {@code max.connection.creation.rate} paces new connections (each
 * waits until the rate allows it), and an address's {@code connection_creation_rate} quota (its ip entity, else the
 * default ip entity) has connections over it closed after the throttle time; only connections let in count against
 * it.
 */
public final class ConnectionCreationRates implements ConnectionAdmission {
    private final Supplier<MetadataImage> image;
    private final ToIntFunction<String> listenerRate;
    private final QuotaManager byListener;
    private final QuotaManager byAddress;
    private final LongSupplier clockMs;

    public ConnectionCreationRates(
            Supplier<MetadataImage> image,
            ToIntFunction<String> listenerRate,
            int samples,
            long windowMs,
            LongSupplier clockMs) {
        this.image = image;
        this.listenerRate = listenerRate;
        this.byListener = new QuotaManager(samples, windowMs);
        this.byAddress = new QuotaManager(samples, windowMs);
        this.clockMs = clockMs;
    }

    @Override
    public Decision admit(String listenerName, InetAddress address) {
        long now = clockMs.getAsLong();
        Double ipRate = ipQuota(address.getHostAddress());
        if (ipRate != null) {
            QuotaResolver.Resolved quota = new QuotaResolver.Resolved(address.getHostAddress(), "", ipRate);
            long throttleMs = byAddress.recordAndGetThrottleMs(quota, 1, now);
            if (throttleMs > 0) {
                byAddress.unrecord(quota, 1, now);
                return new Decision(true, throttleMs);
            }
        }
        int rate = listenerRate.applyAsInt(listenerName);
        if (rate == Integer.MAX_VALUE) {
            return Decision.NOW;
        }
        if (rate == 0) {
            return new Decision(true, 0);
        }
        long delayMs = byListener.recordAndGetThrottleMs(new QuotaResolver.Resolved(listenerName, "", rate), 1, now);
        return delayMs > 0 ? new Decision(false, delayMs) : Decision.NOW;
    }

    private Double ipQuota(String address) {
        Double exact = image.get()
                .clientQuotas()
                .quotas(Map.of(ClientQuotaKeys.IP, address))
                .get(ClientQuotaKeys.CONNECTION_CREATION_RATE);
        if (exact != null) {
            return exact;
        }
        Map<String, String> anyIp = new HashMap<>();
        anyIp.put(ClientQuotaKeys.IP, null);
        return image.get().clientQuotas().quotas(anyIp).get(ClientQuotaKeys.CONNECTION_CREATION_RATE);
    }
}
