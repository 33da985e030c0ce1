package io.varve.broker.network.client;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.security.SecurityConfig;
import io.varve.security.sasl.SaslAuthenticationFailure;
import io.varve.security.sasl.SaslServerExchange;
import io.varve.security.sasl.ScramExchange;
import io.varve.security.sasl.ScramMechanism;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The SASL login of the broker's own connections over an embedded channel, the server played by hand with Varve's
 * SCRAM server exchange: the login comes before any other request, a refused one closes the connection, and a
 * session with a lifetime is renewed in time while answers to earlier requests still arrive.
 */
class SaslClientHandlerTest {
    private static final InetSocketAddress PEER = InetSocketAddress.createUnresolved("127.0.0.1", 9093);
    private static final byte[] SALT = "varve-salt".getBytes(UTF_8);

    private final List<String> sent = new ArrayList<>();

    private static EmbeddedChannel client(String password) {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        ClientSecurity security = new ClientSecurity(
                "SASL_SSL", null, new SecurityConfig.OutgoingSasl("SCRAM-SHA-256", "broker", password));
        ClientSecurity.pipeline(security, channel, PEER, 1 << 20, "varve-broker-1");
        return channel;
    }

    private static ScramExchange server() {
        var credential = ScramMechanism.SCRAM_SHA_256.credential("broker-secret", SALT, 4096);
        return new ScramExchange(
                ScramMechanism.SCRAM_SHA_256,
                (user, mechanism) -> user.equals("broker") ? Optional.of(credential) : Optional.empty(),
                () -> "server-nonce");
    }

    /** The next request the client wrote: its API (recorded in {@link #sent}), correlation id and body. */
    private RequestParser.Parsed nextRequest(EmbeddedChannel channel) {
        ByteBuf out = channel.readOutbound();
        assertThat(out).as("a request was written").isNotNull();
        ByteBuffer bytes = ByteBuffer.allocate(out.readableBytes() - 4);
        out.skipBytes(4).readBytes(bytes);
        out.release();
        RequestParser.Parsed parsed = RequestParser.parseHeader(bytes.flip());
        sent.add(parsed.apiKey().name);
        return parsed;
    }

    private static void answer(EmbeddedChannel channel, RequestParser.Parsed request, ApiMessage response) {
        ByteBuffer body = ClientFrames.responseBytes(
                request.apiKey(), request.apiVersion(), request.header().correlationId(), response);
        ByteBuf frame = Unpooled.buffer(4 + body.remaining());
        frame.writeInt(body.remaining()).writeBytes(body);
        channel.writeInbound(frame);
    }

    /** Plays the server's side of one login; returns the SaslAuthenticate answer's error. */
    private void serveLogin(EmbeddedChannel channel, SaslServerExchange server, long sessionLifetimeMs) {
        RequestParser.Parsed handshake = nextRequest(channel);
        assertThat(((SaslHandshakeRequestData)
                                RequestParser.parseBody(handshake.apiKey(), handshake.apiVersion(), handshake.body())
                                        .data())
                        .mechanism())
                .isEqualTo("SCRAM-SHA-256");
        answer(channel, handshake, new SaslHandshakeResponseData().setMechanisms(List.of("PLAIN", "SCRAM-SHA-256")));
        while (!server.complete()) {
            RequestParser.Parsed authenticate = nextRequest(channel);
            byte[] token = ((SaslAuthenticateRequestData) RequestParser.parseBody(
                                    authenticate.apiKey(), authenticate.apiVersion(), authenticate.body())
                            .data())
                    .authBytes();
            SaslAuthenticateResponseData response;
            try {
                response = new SaslAuthenticateResponseData().setAuthBytes(server.evaluate(token));
                if (server.complete()) {
                    response.setSessionLifetimeMs(sessionLifetimeMs);
                }
            } catch (SaslAuthenticationFailure e) {
                answer(
                        channel,
                        authenticate,
                        new SaslAuthenticateResponseData()
                                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                                .setErrorMessage(e.getMessage()));
                return;
            }
            answer(channel, authenticate, response);
        }
    }

    private static ChannelFuture metadataRequest(EmbeddedChannel channel, int correlationId) {
        return channel.writeAndFlush(Unpooled.wrappedBuffer(ClientFrames.requestFrame(
                ApiKeys.METADATA, (short) 12, correlationId, "varve-broker-1", new MetadataRequestData())));
    }

    @Test
    void aRequestWaitsForTheLoginAndGoesOutOnceTheServerIsSatisfied() {
        EmbeddedChannel channel = client("broker-secret");
        ChannelFuture metadata = metadataRequest(channel, 0);
        assertThat(metadata.isDone()).isFalse();
        serveLogin(channel, server(), 0);
        nextRequest(channel);
        assertThat(sent).containsExactly("SaslHandshake", "SaslAuthenticate", "SaslAuthenticate", "Metadata");
        assertThat(metadata.isSuccess()).isTrue();
        assertThat(channel.isActive()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void aRefusedLoginClosesTheConnectionAndFailsTheWaitingRequest() {
        EmbeddedChannel channel = client("wrong-password");
        ChannelFuture metadata = metadataRequest(channel, 0);
        serveLogin(channel, server(), 0);
        assertThat(channel.isActive()).isFalse();
        assertThat(metadata.isSuccess()).isFalse();
        assertThat(metadata.cause()).isInstanceOf(NodeClient.DisconnectedException.class);
        assertThat(sent).doesNotContain("Metadata");
        channel.finishAndReleaseAll();
    }

    @Test
    void aSessionWithALifetimeLogsInAgainBeforeItEndsWhileEarlierAnswersStillArrive() {
        EmbeddedChannel channel = client("broker-secret");
        serveLogin(channel, server(), 10_000);
        metadataRequest(channel, 0);
        RequestParser.Parsed inFlight = nextRequest(channel);

        channel.advanceTimeBy(8_400, TimeUnit.MILLISECONDS); // before 85 % of the lifetime: nothing yet
        channel.runScheduledPendingTasks();
        assertThat((Object) channel.readOutbound()).isNull();
        channel.advanceTimeBy(1_200, TimeUnit.MILLISECONDS); // past 95 %
        channel.runScheduledPendingTasks();
        ChannelFuture during = metadataRequest(channel, 1);
        // the answer to the request sent before the renewal passes through to the connection's owner
        answer(channel, inFlight, new MetadataResponseData());
        ByteBuf passedUp = channel.readInbound();
        assertThat(ClientFrames.correlationId(passedUp.nioBuffer())).isEqualTo(0);
        passedUp.release();
        serveLogin(channel, server(), 10_000);
        nextRequest(channel);
        assertThat(during.isSuccess()).isTrue();
        assertThat(sent)
                .containsExactly(
                        "SaslHandshake",
                        "SaslAuthenticate",
                        "SaslAuthenticate",
                        "Metadata",
                        "SaslHandshake",
                        "SaslAuthenticate",
                        "SaslAuthenticate",
                        "Metadata");
        channel.finishAndReleaseAll();
    }
    /** A JWT-shaped token: the handler does not read it, the server would. */
    private static io.varve.security.oauthbearer.AccessToken token(String name) {
        return new io.varve.security.oauthbearer.AccessToken("eyJhbGciOiJSUzI1NiJ9." + name + ".c2ln", "broker", 0);
    }

    private String bearerOf(RequestParser.Parsed authenticate) {
        byte[] bytes = ((SaslAuthenticateRequestData)
                        RequestParser.parseBody(authenticate.apiKey(), authenticate.apiVersion(), authenticate.body())
                                .data())
                .authBytes();
        String message = new String(bytes, UTF_8);
        assertThat(message).startsWith("n,,\u0001auth=Bearer ").endsWith("\u0001\u0001");
        return message.substring("n,,\u0001auth=Bearer ".length(), message.length() - 2);
    }

    @Test
    void anOAuthBearerLoginWaitsForItsTokenAndLogsInAgainWithTheRefreshedOne() {
        java.util.concurrent.atomic.AtomicReference<
                        java.util.concurrent.CompletableFuture<io.varve.security.oauthbearer.AccessToken>>
                current = new java.util.concurrent.atomic.AtomicReference<>(
                        new java.util.concurrent.CompletableFuture<>());
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        ClientSecurity security = new ClientSecurity(
                "SASL_PLAINTEXT",
                null,
                new SecurityConfig.OutgoingSasl("OAUTHBEARER", "broker", null, oauthSettings()),
                current::get);
        ClientSecurity.pipeline(security, channel, PEER, 1 << 20, "varve-broker-1");
        ChannelFuture metadata = metadataRequest(channel, 0);
        channel.runPendingTasks();
        assertThat((Object) channel.readOutbound())
                .as("nothing before the first token")
                .isNull();

        current.get().complete(token("first"));
        channel.runPendingTasks();
        RequestParser.Parsed handshake = nextRequest(channel);
        assertThat(((SaslHandshakeRequestData)
                                RequestParser.parseBody(handshake.apiKey(), handshake.apiVersion(), handshake.body())
                                        .data())
                        .mechanism())
                .isEqualTo("OAUTHBEARER");
        answer(channel, handshake, new SaslHandshakeResponseData().setMechanisms(List.of("OAUTHBEARER")));
        RequestParser.Parsed authenticate = nextRequest(channel);
        assertThat(bearerOf(authenticate)).isEqualTo(token("first").value());
        answer(channel, authenticate, new SaslAuthenticateResponseData().setSessionLifetimeMs(10_000));
        nextRequest(channel);
        assertThat(metadata.isSuccess()).isTrue();

        // the login refreshed its token meanwhile: the re-authentication (KIP-368) shows the new one
        current.set(java.util.concurrent.CompletableFuture.completedFuture(token("second")));
        channel.advanceTimeBy(9_600, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
        RequestParser.Parsed again = nextRequest(channel);
        answer(channel, again, new SaslHandshakeResponseData().setMechanisms(List.of("OAUTHBEARER")));
        assertThat(bearerOf(nextRequest(channel))).isEqualTo(token("second").value());
        assertThat(channel.isActive()).isTrue();
        channel.finishAndReleaseAll();
    }

    @Test
    void anOAuthBearerLoginWithoutATokenClosesTheConnectionWithTheEndpointsReason() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        ClientSecurity security = new ClientSecurity(
                "SASL_PLAINTEXT",
                null,
                new SecurityConfig.OutgoingSasl("OAUTHBEARER", "broker", null, oauthSettings()),
                () -> java.util.concurrent.CompletableFuture.failedFuture(
                        new java.io.IOException("no OAUTHBEARER token from http://idp/token: HTTP status 401")));
        ClientSecurity.pipeline(security, channel, PEER, 1 << 20, "varve-broker-1");
        ChannelFuture metadata = metadataRequest(channel, 0);
        channel.runPendingTasks();
        assertThat(channel.isActive()).isFalse();
        assertThat(metadata.cause())
                .isInstanceOf(NodeClient.DisconnectedException.class)
                .hasMessageContaining("HTTP status 401");
        channel.finishAndReleaseAll();
    }

    private static io.varve.broker.security.OAuthBearerLoginSettings oauthSettings() {
        return new io.varve.broker.security.OAuthBearerLoginSettings(
                java.net.URI.create("http://idp/token"),
                "broker",
                "broker-secret",
                null,
                false,
                "sub",
                io.varve.security.oauthbearer.RefreshSchedule.DEFAULTS,
                1_000,
                1_000);
    }
}
