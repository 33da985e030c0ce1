package io.varve.broker.controller;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which connection each broker last heartbeated on, so that the controller learns at once when a broker's process
 * went away: its kernel closes the socket, and the close names the broker. A broker that reconnected and heartbeated
 * on a new connection is not blamed for the close of its old one.
 */
final class BrokerConnections {
    private final Map<Integer, InetSocketAddress> latest = new ConcurrentHashMap<>();

    /** A heartbeat of {@code brokerId} arrived from {@code remote} (null when it came in process: nothing to watch). */
    void heartbeatOn(int brokerId, InetSocketAddress remote) {
        if (remote != null) {
            latest.put(brokerId, remote);
        }
    }

    /** The broker whose latest heartbeat connection {@code remote} was, now forgotten; empty for any other connection. */
    Optional<Integer> closed(InetSocketAddress remote) {
        for (Map.Entry<Integer, InetSocketAddress> entry : latest.entrySet()) {
            if (entry.getValue().equals(remote) && latest.remove(entry.getKey(), remote)) {
                return Optional.of(entry.getKey());
            }
        }
        return Optional.empty();
    }
}
