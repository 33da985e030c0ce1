package io.varve.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslHandler;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.network.client.ClientSecurity;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keystore reload of the inter-broker listener reaches the broker's own clients of that listener too: the next
 * connection they open presents the new certificate (Kafka reconfigures its inter-broker clients the same way).
 */
class KeystoreReloaderTest {
    private static final String PASSWORD = "reload-secret";

    @TempDir
    static Path dir;

    private static Path first;
    private static Path second;
    private static Path trusted;

    @BeforeAll
    static void certificates() throws Exception {
        first = keystore("first");
        second = keystore("second");
        trusted = dir.resolve("trusted.pem");
        Files.writeString(trusted, Files.readString(pem("first")) + Files.readString(pem("second")));
    }

    @Test
    void theBrokersOwnConnectionsPresentTheReloadedCertificateOnTheirNextHandshake() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("log.dirs", dir.resolve("data").toString());
        props.put("node.id", "101");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0");
        props.put("inter.broker.listener.name", "SSL");
        props.put("controller.quorum.voters", "1@127.0.0.1:9093,2@127.0.0.1:9094");
        props.put("process.roles", "broker");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:PLAINTEXT");
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.location", first.toString());
        props.put("ssl.keystore.password", PASSWORD);
        props.put("ssl.truststore.type", "PEM");
        props.put("ssl.truststore.location", trusted.toString());
        props.put("ssl.client.auth", "required");
        props.put("ssl.endpoint.identification.algorithm", "");
        BrokerConfig config = BrokerConfig.fromMap(props);
        Map<String, ReloadableSslContext> contexts = new HashMap<>();
        TlsContexts.fronts(config.security(), config.listeners(), contexts);
        ClientSecurity client = ClientSecurity.forListener(config, "SSL");
        assertThat(clientCertificate(client, contexts.get("SSL"))).isEqualTo("CN=first");

        MetadataDelta delta = new MetadataDelta(MetadataImage.EMPTY);
        delta.replay(new ConfigRecord(
                ConfigResourceType.BROKER, "101", "listener.name.ssl.ssl.keystore.location", second.toString()));
        MetadataImage image = delta.apply(0);
        KeystoreReloader reloader = new KeystoreReloader(101, config.security(), contexts, () -> image);
        reloader.onMetadataUpdate(delta, image);

        assertThat(clientCertificate(client, contexts.get("SSL"))).isEqualTo("CN=second");
    }

    /** The subject of the certificate the client presents in a handshake with {@code server}. */
    private static String clientCertificate(ClientSecurity client, ReloadableSslContext server) throws Exception {
        EmbeddedChannel serverChannel = new EmbeddedChannel();
        SslHandler serverTls = server.newHandler(serverChannel.alloc());
        serverChannel.pipeline().addLast(serverTls);
        EmbeddedChannel clientChannel = new EmbeddedChannel();
        SslHandler clientTls =
                client.handler(clientChannel.alloc(), InetSocketAddress.createUnresolved("127.0.0.1", 9093));
        clientChannel.pipeline().addLast(clientTls);
        for (int round = 0; round < 64 && (move(clientChannel, serverChannel) | move(serverChannel, clientChannel)); ) {
            round++;
        }
        assertThat(serverTls.handshakeFuture().isSuccess()).isTrue();
        String subject = ((X509Certificate) serverTls.engine().getSession().getPeerCertificates()[0])
                .getSubjectX500Principal()
                .getName();
        clientChannel.finishAndReleaseAll();
        serverChannel.finishAndReleaseAll();
        return subject;
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        from.runPendingTasks();
        boolean moved = false;
        Object out;
        while ((out = from.readOutbound()) != null) {
            moved = true;
            to.writeInbound((ByteBuf) out);
        }
        to.runPendingTasks();
        return moved;
    }

    private static Path keystore(String name) throws Exception {
        Path keystore = dir.resolve(name + ".p12");
        keytool(
                "-genkeypair",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-alias",
                name,
                "-dname",
                "CN=" + name,
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
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                name,
                "-keystore",
                keystore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                pem(name).toString());
        return keystore;
    }

    private static Path pem(String name) {
        return dir.resolve(name + ".pem");
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
