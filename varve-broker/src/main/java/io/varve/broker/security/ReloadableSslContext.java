package io.varve.broker.security;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolNegotiator;
import io.netty.handler.ssl.SslContext;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSessionContext;

/**
 * A listener's server TLS context that a keystore reload can replace: every new connection takes the engine of the
 * context current at its accept, connections already open keep theirs. The swap is one volatile write.
 */
public final class ReloadableSslContext extends SslContext {
    private volatile SslContext current;

    public ReloadableSslContext(SslContext initial) {
        this.current = initial;
    }

    /** Future connections use {@code next}. */
    void replace(SslContext next) {
        current = next;
    }

    @Override
    public boolean isClient() {
        return false;
    }

    @Override
    public List<String> cipherSuites() {
        return current.cipherSuites();
    }

    @Override
    @SuppressWarnings("deprecation")
    public ApplicationProtocolNegotiator applicationProtocolNegotiator() {
        return current.applicationProtocolNegotiator();
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc) {
        return current.newEngine(alloc);
    }

    @Override
    public SSLEngine newEngine(ByteBufAllocator alloc, String peerHost, int peerPort) {
        return current.newEngine(alloc, peerHost, peerPort);
    }

    @Override
    public SSLSessionContext sessionContext() {
        return current.sessionContext();
    }
}
