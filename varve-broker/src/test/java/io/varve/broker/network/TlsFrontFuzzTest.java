package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.varve.broker.security.ListenerSecurity;
import io.varve.broker.security.SecurityProtocol;
import io.varve.broker.security.TlsContexts;
import io.varve.security.Principal;
import io.varve.security.ssl.PrincipalMappingRules;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.LoggerFactory;

/**
 * Varve's TLS front — the listener pipeline of an SSL listener ({@link ConnectionPipeline}: Netty's SslHandler with the
 * context {@link TlsContexts} builds, the framer, the connection handler) on an embedded channel — fed bytes a peer may
 * send:
 *
 * <ul>
 *   <li>any bytes where a handshake should be: nothing reaches the request dispatcher;
 *   <li>a real handshake (a Netty client, TLS 1.3 and 1.2), then any plaintext through the cipher: the dispatcher gets
 *       exactly the frames the size fields announce, in order, as an anonymous principal, until a too-long frame
 *       closes the connection;
 *   <li>a real handshake, then any bytes on the wire (records nobody encrypted): nothing reaches the dispatcher.
 * </ul>
 *
 * In every case no exception leaves the pipeline (an embedded channel rethrows one that reaches its end).
 *
 * <p>Seeds: {@code src/test/resources/io/varve/broker/network/TlsFrontFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes
 * (README: Fuzzing).
 */
class TlsFrontFuzzTest {
    private static final int MAX_FRAME_BYTES = 64 * 1024;
    private static final String PASSWORD = "fuzz-store-secret";
    private static final SocketServer.Settings SETTINGS = new SocketServer.Settings(MAX_FRAME_BYTES, 0, 1, 0, 0);
    private static final SslContext SERVER = serverContext();
    private static final SslContext CLIENT = clientContext();

    static {
        // every refused handshake logs a line (as it should in a broker); thousands a second would slow the fuzzer
        ((Logger) LoggerFactory.getLogger(ConnectionHandler.class)).setLevel(Level.ERROR);
        ((Logger) LoggerFactory.getLogger("io.netty")).setLevel(Level.INFO);
    }

    @FuzzTest(maxDuration = "20s")
    void bytesBeforeOrAfterAHandshakeReachTheDispatcherOnlyAsFramesThroughTheCipher(FuzzedDataProvider data)
            throws Exception {
        int mode = data.consumeInt(0, 2);
        int chunkBytes = data.consumeInt(1, 4096);
        byte[] bytes = data.consumeRemainingAsBytes();
        Recorder dispatcher = new Recorder();
        EmbeddedChannel server = server(dispatcher);
        EmbeddedChannel client = null;
        try {
            if (mode == 0) {
                feed(server, bytes, chunkBytes);
                assertThat(dispatcher.frames).isEmpty();
                return;
            }
            client = new EmbeddedChannel(CLIENT.newHandler(ByteBufAllocator.DEFAULT));
            shuttle(client, server);
            SslHandler clientTls = client.pipeline().get(SslHandler.class);
            assertThat(clientTls.handshakeFuture().isSuccess())
                    .as("the handshake completes")
                    .isTrue();
            if (mode == 1) {
                for (int at = 0; at < bytes.length && client.isActive(); at += chunkBytes) {
                    int n = Math.min(chunkBytes, bytes.length - at);
                    client.writeOutbound(Unpooled.wrappedBuffer(bytes, at, n));
                    shuttle(client, server);
                }
                List<byte[]> expected = announcedFrames(bytes);
                if (server.isActive()) {
                    assertThat(dispatcher.frames).hasSameSizeAs(expected);
                } else {
                    assertThat(dispatcher.frames.size()).isLessThanOrEqualTo(expected.size());
                }
                for (int i = 0; i < dispatcher.frames.size(); i++) {
                    assertThat(dispatcher.frames.get(i)).isEqualTo(expected.get(i));
                }
                assertThat(dispatcher.principals).allMatch(Principal.ANONYMOUS::equals);
            } else {
                feed(server, bytes, chunkBytes);
                assertThat(dispatcher.frames).isEmpty();
            }
        } finally {
            server.finishAndReleaseAll();
            if (client != null) {
                client.finishAndReleaseAll();
            }
        }
    }

    private static EmbeddedChannel server(RequestDispatcher dispatcher) {
        ListenerFront front = new ListenerFront(SecurityProtocol.SSL, SERVER, PrincipalMappingRules.DEFAULT);
        return new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ConnectionPipeline.install(ch, SETTINGS, front, dispatcher, "SSL", 1, 64);
            }
        });
    }

    /** Raw bytes onto the server's wire, then its answers away. */
    private static void feed(EmbeddedChannel server, byte[] bytes, int chunkBytes) {
        for (int at = 0; at < bytes.length && server.isActive(); at += chunkBytes) {
            int n = Math.min(chunkBytes, bytes.length - at);
            server.writeInbound(Unpooled.wrappedBuffer(bytes, at, n));
            server.runPendingTasks();
            drop(server);
        }
    }

    /** Moves bytes between the two ends until both are quiet (bounded: a handshake takes a few rounds). */
    private static void shuttle(EmbeddedChannel client, EmbeddedChannel server) {
        for (int round = 0; round < 64; round++) {
            boolean moved = false;
            Object out;
            while ((out = client.readOutbound()) != null) {
                moved = true;
                if (server.isActive()) {
                    server.writeInbound(out);
                } else {
                    ((ByteBuf) out).release();
                }
            }
            server.runPendingTasks();
            while ((out = server.readOutbound()) != null) {
                moved = true;
                if (client.isActive()) {
                    client.writeInbound(out);
                } else {
                    ((ByteBuf) out).release();
                }
            }
            client.runPendingTasks();
            Object in;
            while ((in = client.readInbound()) != null) {
                ((ByteBuf) in).release(); // the server's (decrypted) answers
            }
            if (!moved) {
                return;
            }
        }
    }

    private static void drop(EmbeddedChannel channel) {
        Object out;
        while ((out = channel.readOutbound()) != null) {
            ((ByteBuf) out).release();
        }
    }

    /** The frames a correct framer cuts from {@code stream}, up to the first size field over the limit. */
    private static List<byte[]> announcedFrames(byte[] stream) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(stream);
        while (in.remaining() >= 4) {
            int size = in.getInt();
            if (size < 0 || size > MAX_FRAME_BYTES || in.remaining() < size) {
                break;
            }
            byte[] frame = new byte[size];
            in.get(frame);
            frames.add(frame);
        }
        return frames;
    }

    /** Copies each frame it is given and answers it at once with four bytes. */
    private static final class Recorder implements RequestDispatcher {
        final List<byte[]> frames = new ArrayList<>();
        final List<Principal> principals = new ArrayList<>();

        @Override
        public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
            byte[] copy = new byte[frame.remaining()];
            frame.duplicate().get(copy);
            frames.add(copy);
            principals.add(connection.authentication().principal());
            return CompletableFuture.completedFuture(ResponseFrame.of(ByteBuffer.allocate(4)));
        }
    }

    /** Varve's own server context over a keystore keytool makes once per run (an EC key: quick to make and use). */
    private static SslContext serverContext() {
        try {
            Path dir = Files.createTempDirectory("tls-front-fuzz");
            Path keystore = dir.resolve("server.p12");
            Process keytool = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "keytool")
                                    .toString(),
                            "-genkeypair",
                            "-keyalg",
                            "EC",
                            "-groupname",
                            "secp256r1",
                            "-alias",
                            "server",
                            "-dname",
                            "CN=localhost",
                            "-validity",
                            "2",
                            "-storetype",
                            "PKCS12",
                            "-keystore",
                            keystore.toString(),
                            "-storepass",
                            PASSWORD,
                            "-keypass",
                            PASSWORD)
                    .redirectErrorStream(true)
                    .start();
            if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
                throw new IllegalStateException(
                        "keytool failed: " + new String(keytool.getInputStream().readAllBytes()));
            }
            dir.toFile().deleteOnExit();
            keystore.toFile().deleteOnExit();
            ListenerSecurity.Tls tls = new ListenerSecurity.Tls(
                    "PKCS12",
                    keystore.toString(),
                    PASSWORD,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    ListenerSecurity.ClientAuth.NONE,
                    List.of("TLSv1.3", "TLSv1.2"),
                    List.of(),
                    PrincipalMappingRules.DEFAULT,
                    KeyManagerFactory.getDefaultAlgorithm(),
                    TrustManagerFactory.getDefaultAlgorithm());
            return TlsContexts.serverContext("SSL", tls);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static SslContext clientContext() {
        try {
            return SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .build();
        } catch (SSLException e) {
            throw new IllegalStateException(e);
        }
    }
}
