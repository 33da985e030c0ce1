package io.varve.broker.network;

import io.netty.channel.Channel;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The handlers of one accepted connection, in order: TLS on SSL and SASL_SSL listeners (first, so everything after
 * it sees plaintext), the idle reaper, the framer, the request handler. Apart from {@link SocketServer} so that a test
 * (the TLS front's fuzzer) can put the very same pipeline on an embedded channel.
 */
final class ConnectionPipeline {

    static void install(
            Channel ch,
            SocketServer.Settings settings,
            ListenerFront front,
            RequestDispatcher dispatcher,
            String listenerName,
            long connectionId,
            int maxQueuedRequests) {
        if (front.tls()) {
            ch.pipeline().addLast("tls", front.sslContext().newHandler(ch.alloc()));
        }
        if (settings.connectionsMaxIdleMs() > 0) {
            ch.pipeline()
                    .addLast(
                            "idle", new IdleStateHandler(0, 0, settings.connectionsMaxIdleMs(), TimeUnit.MILLISECONDS));
        }
        ch.pipeline().addLast("framer", new RequestFramer(settings.maxFrameBytes()));
        ch.pipeline()
                .addLast(
                        "requests",
                        new ConnectionHandler(dispatcher, listenerName, connectionId, maxQueuedRequests, front));
    }

    private ConnectionPipeline() {}
}
