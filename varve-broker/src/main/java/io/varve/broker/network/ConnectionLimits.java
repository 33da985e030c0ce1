package io.varve.broker.network;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code max.connections.per.ip} (with {@code max.connections.per.ip.overrides}) and {@code max.connections}: how
 * many connections one address, and the broker as a whole, may hold. A new connection over either limit is closed at
 * once (Kafka closes it over the address's limit, and waits for a free slot at the broker's). Thread safe: every
 * network thread calls it.
 */
public final class ConnectionLimits {
    public static final ConnectionLimits NONE = new ConnectionLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Map.of());

    private final int maxConnections;
    private final int maxPerIp;
    private final Map<InetAddress, Integer> overrides;
    private final Map<InetAddress, Integer> byAddress = new HashMap<>();
    private int total;

    public ConnectionLimits(int maxConnections, int maxPerIp, Map<InetAddress, Integer> overrides) {
        this.maxConnections = maxConnections;
        this.maxPerIp = maxPerIp;
        this.overrides = Map.copyOf(overrides);
    }

    /** Counts a new connection of {@code address}; false (nothing counted) when that address is at its limit. */
    public synchronized boolean tryAcquire(InetAddress address) {
        int limit = overrides.getOrDefault(address, maxPerIp);
        int current = byAddress.getOrDefault(address, 0);
        if (current >= limit || total >= maxConnections) {
            return false;
        }
        byAddress.put(address, current + 1);
        total++;
        return true;
    }

    /** A counted connection closed. */
    public synchronized void release(InetAddress address) {
        Integer current = byAddress.get(address);
        if (current == null) {
            throw new IllegalStateException("released a connection of " + address + " that was never counted");
        }
        if (current == 1) {
            byAddress.remove(address);
        } else {
            byAddress.put(address, current - 1);
        }
        total--;
    }

    /** True when the broker holds as many connections as {@code max.connections} allows. */
    public synchronized boolean full() {
        return total >= maxConnections;
    }

    /** True when {@code address} is over its own limit (not merely the broker at its total). */
    public synchronized boolean addressAtLimit(InetAddress address) {
        return byAddress.getOrDefault(address, 0) >= overrides.getOrDefault(address, maxPerIp);
    }
}
