package io.varve.broker.network;

import java.net.InetAddress;

/**
 * Whether a new connection is served at once, after a delay, or closed: connection creation rates (the listener's
 * {@code max.connection.creation.rate}, the address's {@code connection_creation_rate} quota). Called once per
 * accepted connection, from the network threads.
 */
@FunctionalInterface
public interface ConnectionAdmission {
    ConnectionAdmission NONE = (listener, address) -> Decision.NOW;

    Decision admit(String listenerName, InetAddress address);

    /** {@code close}: close after {@code delayMs}; otherwise read nothing before {@code delayMs} have passed. */
    record Decision(boolean close, long delayMs) {
        public static final Decision NOW = new Decision(false, 0);
    }
}
