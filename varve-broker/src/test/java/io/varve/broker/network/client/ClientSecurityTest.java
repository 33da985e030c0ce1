package io.varve.broker.network.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import io.varve.broker.security.ListenerSecurity;
import io.varve.broker.security.TlsContexts;
import io.varve.security.ssl.PrincipalMappingRules;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS client of the broker's own connections against Varve's server context with {@code ssl.client.auth=required}:
 * the handshake completes with the broker's certificate as client certificate, and with hostname verification on
 * (Kafka's default) it fails for a peer address the server's certificate does not name, unless verification is off.
 */
class ClientSecurityTest {
    private static final String PASSWORD = "client-tls-secret";

    @TempDir
    static Path dir;

    private static ListenerSecurity.Tls tls;

    @BeforeAll
    static void certificates() throws Exception {
        Path keystore = dir.resolve("node.p12");
        keytool(
                "-genkeypair",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-alias",
                "node",
                "-dname",
                "CN=node",
                "-ext",
                "san=ip:127.0.0.1,dns:localhost",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        Path pem = dir.resolve("node.pem");
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "node",
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                pem.toString());
        tls = new ListenerSecurity.Tls(
                "PKCS12",
                keystore.toString(),
                PASSWORD,
                null,
                null,
                null,
                "PEM",
                pem.toString(),
                null,
                null,
                ListenerSecurity.ClientAuth.REQUIRED,
                List.of("TLSv1.3", "TLSv1.2"),
                List.of(),
                PrincipalMappingRules.DEFAULT,
                KeyManagerFactory.getDefaultAlgorithm(),
                TrustManagerFactory.getDefaultAlgorithm());
    }

    @Test
    void handshakesWithAClientCertificateWhenThePeerCertificateNamesTheAddress() {
        assertThat(handshake(new ClientSecurity(TlsContexts.clientContext("SSL", tls, true)), "127.0.0.1"))
                .isTrue();
        assertThat(handshake(new ClientSecurity(TlsContexts.clientContext("SSL", tls, true)), "localhost"))
                .isTrue();
    }

    @Test
    void refusesAPeerWhoseCertificateDoesNotNameTheAddressUnlessVerificationIsOff() {
        assertThat(handshake(new ClientSecurity(TlsContexts.clientContext("SSL", tls, true)), "127.0.0.2"))
                .isFalse();
        assertThat(handshake(new ClientSecurity(TlsContexts.clientContext("SSL", tls, false)), "127.0.0.2"))
                .isTrue();
    }

    /** Runs a handshake between the client and Varve's server context over embedded channels; true if it completed. */
    private static boolean handshake(ClientSecurity clientTls, String peerHost) {
        EmbeddedChannel server = new EmbeddedChannel();
        SslHandler serverTls = TlsContexts.serverContext("SSL", tls).newHandler(server.alloc());
        server.pipeline().addLast(serverTls);
        EmbeddedChannel client = new EmbeddedChannel();
        SslHandler clientTlsHandler =
                clientTls.handler(client.alloc(), InetSocketAddress.createUnresolved(peerHost, 9093));
        client.pipeline().addLast(clientTlsHandler);
        for (int round = 0; round < 64; round++) {
            boolean moved = move(client, server) | move(server, client);
            if (!moved) {
                break;
            }
        }
        boolean done = clientTlsHandler.handshakeFuture().isSuccess()
                && serverTls.handshakeFuture().isSuccess();
        client.finishAndReleaseAll();
        server.finishAndReleaseAll();
        return done;
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        from.runPendingTasks();
        boolean moved = false;
        Object out;
        while ((out = from.readOutbound()) != null) {
            moved = true;
            if (!to.isActive()) {
                ((ByteBuf) out).release();
                continue;
            }
            try {
                to.writeInbound(out);
            } catch (RuntimeException refused) {
                // a refused handshake surfaces here as well as on the handshake future, which the test reads
            }
        }
        to.runPendingTasks();
        return moved;
    }

    private static void keytool(String... arguments) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(
                    "keytool failed: " + new String(process.getInputStream().readAllBytes()));
        }
    }
}
