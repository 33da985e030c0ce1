package io.varve.broker.network.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.varve.broker.protocol.ClientFrames;
import io.varve.security.oauthbearer.OAuthBearerClientExchange;
import io.varve.security.sasl.SaslAuthenticationFailure;
import io.varve.security.sasl.SaslClientExchange;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * The SASL login of one of the broker's own connections, as Kafka's client runs it: SaslHandshake v1 names the
 * mechanism, then SaslAuthenticate carries the mechanism's tokens until both sides are satisfied (OAUTHBEARER: the
 * current token of the listener's login, waited for when the first one is still being fetched); the connection's
 * other requests wait meanwhile (held here, bounded by their sender's in-flight limit and by {@link #MAX_HELD}). When
 * the server gives the session a lifetime (KIP-368's {@code session_lifetime_ms}), the connection logs in again at a
 * random point between 85 % and 95 % of it, holding new requests while answers to earlier ones still arrive. A refused
 * login closes the connection, so its requests fail and their sender retries as after any drop.
 *
 * <pre>
 * state           event                                 next
 * LOGGING_IN      handshake NONE                        LOGGING_IN (first SaslAuthenticate)
 * LOGGING_IN      authenticate NONE, client has more    LOGGING_IN (next token)
 * LOGGING_IN      authenticate NONE, client complete    READY (held requests go out)
 * READY           85-95 % of the session lifetime       LOGGING_IN (handshake again)
 * LOGGING_IN      any error, a bad token                FAILED (close)
 * </pre>
 *
 * Runs on the connection's event loop only; frames of its own exchange are told apart by their correlation ids.
 */
final class SaslClientHandler extends ChannelDuplexHandler {
    /** More requests than any of Varve's clients keeps in flight on one connection. */
    static final int MAX_HELD = 1_024;

    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;
    private static final SecureRandom NONCES = new SecureRandom();

    private enum State {
        LOGGING_IN,
        READY,
        FAILED
    }

    private record Held(Object message, ChannelPromise promise) {}

    private final ClientSecurity security;
    private final InetSocketAddress peer;
    private final String clientId;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private State state = State.LOGGING_IN;
    private SaslClientExchange exchange;
    /** The correlation id and API of the exchange's request awaiting its answer; -1 when none. */
    private int awaitedCorrelationId = -1;

    private ApiKeys awaitedApi;
    /** Negative, so they never meet the ids of the connection's other requests (counted up from 0). */
    private int nextCorrelationId = Integer.MIN_VALUE;

    private ScheduledFuture<?> reauthentication;
    private boolean loginStarted;

    SaslClientHandler(ClientSecurity security, InetSocketAddress peer, String clientId) {
        this.security = security;
        this.peer = peer;
        this.clientId = clientId;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            logIn(ctx); // added to a connected channel; a connecting one logs in when it becomes active
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!loginStarted) {
            logIn(ctx);
        }
        super.channelActive(ctx);
    }

    private void logIn(ChannelHandlerContext ctx) {
        state = State.LOGGING_IN;
        loginStarted = true;
        String mechanism = security.sasl().mechanism();
        if (security.sasl().oauthBearer() != null) {
            // the token may still be on its way (the first fetch at start-up): the connection waits for it
            security.oauthBearerToken()
                    .whenComplete((token, error) -> ctx.executor().execute(() -> {
                        if (state != State.LOGGING_IN || !ctx.channel().isActive()) {
                            return;
                        }
                        if (error != null) {
                            Throwable cause = error instanceof CompletionException && error.getCause() != null
                                    ? error.getCause()
                                    : error;
                            fail(ctx, String.valueOf(cause.getMessage()));
                            return;
                        }
                        OAuthBearerClientExchange bearer;
                        try {
                            bearer = new OAuthBearerClientExchange(token.value());
                        } catch (IllegalArgumentException e) {
                            fail(ctx, "its token cannot be sent: " + e.getMessage());
                            return;
                        }
                        handshake(ctx, bearer);
                    }));
            return;
        }
        handshake(
                ctx,
                SaslClientExchange.of(
                                mechanism,
                                security.sasl().username(),
                                security.sasl().password(),
                                () -> {
                                    byte[] nonce = new byte[24];
                                    NONCES.nextBytes(nonce);
                                    return Base64.getUrlEncoder()
                                            .withoutPadding()
                                            .encodeToString(nonce);
                                })
                        .orElseThrow(() -> new IllegalStateException("the config let through mechanism " + mechanism)));
    }

    private void handshake(ChannelHandlerContext ctx, SaslClientExchange next) {
        exchange = next;
        send(
                ctx,
                ApiKeys.SASL_HANDSHAKE,
                HANDSHAKE_VERSION,
                new SaslHandshakeRequestData().setMechanism(next.mechanism()));
    }

    private void send(ChannelHandlerContext ctx, ApiKeys api, short version, ApiMessage body) {
        int correlationId = nextCorrelationId++;
        if (nextCorrelationId >= 0) {
            nextCorrelationId = Integer.MIN_VALUE;
        }
        awaitedCorrelationId = correlationId;
        awaitedApi = api;
        ByteBuffer frame = ClientFrames.requestFrame(api, version, correlationId, clientId, body);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(frame));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state != State.LOGGING_IN
                || awaitedCorrelationId == -1
                || !(msg instanceof ByteBuf frame)
                || frame.readableBytes() < 4
                || frame.getInt(frame.readerIndex()) != awaitedCorrelationId) {
            ctx.fireChannelRead(msg); // an answer to one of the connection's own requests
            return;
        }
        ByteBuffer bytes;
        try {
            bytes = ByteBuffer.allocate(frame.readableBytes());
            frame.readBytes(bytes);
            bytes.flip();
        } finally {
            frame.release();
        }
        ApiKeys api = awaitedApi;
        short version = api == ApiKeys.SASL_HANDSHAKE ? HANDSHAKE_VERSION : AUTHENTICATE_VERSION;
        awaitedCorrelationId = -1;
        ApiMessage response;
        try {
            response = ClientFrames.response(api, version, bytes).body();
        } catch (RuntimeException e) {
            fail(ctx, "its " + api.name + " answer cannot be read: " + e.getMessage());
            return;
        }
        if (response instanceof SaslHandshakeResponseData handshake) {
            handshaken(ctx, handshake);
        } else {
            authenticated(ctx, (SaslAuthenticateResponseData) response);
        }
    }

    private void handshaken(ChannelHandlerContext ctx, SaslHandshakeResponseData response) {
        if (response.errorCode() != Errors.NONE.code()) {
            Errors error = Errors.forCode(response.errorCode());
            fail(
                    ctx,
                    error == Errors.UNSUPPORTED_SASL_MECHANISM
                            ? "it does not offer " + exchange.mechanism() + " (it offers " + response.mechanisms() + ")"
                            : "its SaslHandshake answer is " + error.name());
            return;
        }
        send(
                ctx,
                ApiKeys.SASL_AUTHENTICATE,
                AUTHENTICATE_VERSION,
                new SaslAuthenticateRequestData().setAuthBytes(exchange.initialResponse()));
    }

    private void authenticated(ChannelHandlerContext ctx, SaslAuthenticateResponseData response) {
        if (response.errorCode() != Errors.NONE.code()) {
            String message = response.errorMessage();
            fail(ctx, Errors.forCode(response.errorCode()).name() + (message == null ? "" : ": " + message));
            return;
        }
        byte[] next;
        try {
            next = exchange.evaluate(response.authBytes());
        } catch (SaslAuthenticationFailure e) {
            fail(ctx, e.getMessage());
            return;
        }
        if (next != null) {
            send(
                    ctx,
                    ApiKeys.SASL_AUTHENTICATE,
                    AUTHENTICATE_VERSION,
                    new SaslAuthenticateRequestData().setAuthBytes(next));
            return;
        }
        state = State.READY;
        security.loggedIn(peer);
        while (!held.isEmpty()) {
            Held h = held.poll();
            ctx.write(h.message(), h.promise());
        }
        ctx.flush();
        long lifetimeMs = response.sessionLifetimeMs();
        if (lifetimeMs > 0) {
            long delayMs = (long)
                    (lifetimeMs * (0.85 + 0.1 * ThreadLocalRandom.current().nextDouble()));
            reauthentication = ctx.executor().schedule(() -> logInAgain(ctx), delayMs, TimeUnit.MILLISECONDS);
        }
    }

    private void logInAgain(ChannelHandlerContext ctx) {
        if (state == State.READY && ctx.channel().isActive()) {
            logIn(ctx);
        }
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        state = State.FAILED;
        security.loginFailed(peer, why);
        failHeld(why);
        ctx.close();
    }

    private void failHeld(String why) {
        while (!held.isEmpty()) {
            Held h = held.poll();
            ReferenceCountUtil.release(h.message());
            h.promise().tryFailure(new NodeClient.DisconnectedException("cannot log in to " + peer + ": " + why));
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        switch (state) {
            case READY -> ctx.write(msg, promise);
            case FAILED -> {
                ReferenceCountUtil.release(msg);
                promise.tryFailure(new NodeClient.DisconnectedException("the login to " + peer + " failed"));
            }
            case LOGGING_IN -> {
                if (held.size() >= MAX_HELD) {
                    ReferenceCountUtil.release(msg);
                    promise.tryFailure(new NodeClient.DisconnectedException(
                            MAX_HELD + " requests already wait for the login to " + peer));
                } else {
                    held.add(new Held(msg, promise));
                }
            }
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (state == State.READY) {
            ctx.flush();
        } // else: held writes go out, flushed, once logged in; the exchange flushes its own frames
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop("the connection closed");
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop("the connection closed");
    }

    private void stop(String why) {
        if (reauthentication != null) {
            reauthentication.cancel(false);
        }
        failHeld(why);
    }
}
