package io.varve.broker.network;

import io.varve.broker.security.ConnectionAuthentication;
import java.net.InetSocketAddress;

/**
 * Who is on the other end of a connection, which listener accepted it, and what it has proven so far (its security
 * protocol and principal: {@link ConnectionAuthentication}).
 */
public record ConnectionInfo(
        String listenerName,
        InetSocketAddress remoteAddress,
        long connectionId,
        ConnectionAuthentication authentication) {

    /** A PLAINTEXT connection: anonymous, nothing to prove. */
    public ConnectionInfo(String listenerName, InetSocketAddress remoteAddress, long connectionId) {
        this(listenerName, remoteAddress, connectionId, ConnectionAuthentication.plaintext());
    }
}
