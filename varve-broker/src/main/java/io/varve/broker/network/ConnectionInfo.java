package io.varve.broker.network;

import java.net.InetSocketAddress;

/** Who is on the other end of a connection and which listener accepted it. */
public record ConnectionInfo(String listenerName, InetSocketAddress remoteAddress, long connectionId) {}
