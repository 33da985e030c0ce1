package io.varve.it.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code max.connections.per.ip} and its overrides: an address over its limit has its new connection closed, another
 * address (127.0.0.2, a loopback alias) has its own override, and a closed connection frees its slot.
 */
class ConnectionLimitsIT {
    @TempDir
    Path dir;

    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void closeSockets() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }

    private Socket connect(String from, int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(5000);
        sockets.add(socket);
        return socket;
    }

    /** True when the broker answers an ApiVersions request on this connection; false when it closed it. */
    private static boolean answers(Socket socket) {
        try {
            ApiVersionsRequestData request =
                    new ApiVersionsRequestData().setClientSoftwareName("t").setClientSoftwareVersion("1");
            new RawClient(socket).send(request, (short) 3); // not closed here: the test closes its sockets
            return true;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer and no close within 5 s", e);
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void pastMaxConnectionsANewConnectionIsClosedUntilOneCloses() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("max.connections", "2"))) {
            int port = broker.port();
            Socket first = connect("127.0.0.1", port);
            assertThat(answers(first)).isTrue();
            assertThat(answers(connect("127.0.0.2", port))).isTrue();
            assertThat(answers(connect("127.0.0.3", port)))
                    .as("a third, from any address")
                    .isFalse();
            first.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> answers(connect("127.0.0.3", port)));
        }
    }

    @Test
    void anAddressOverItsLimitIsRefusedAndAClosedConnectionFreesItsSlot() throws Exception {
        try (TestBroker broker = TestBroker.start(
                dir, Map.of("max.connections.per.ip", "2", "max.connections.per.ip.overrides", "127.0.0.2:3"))) {
            int port = broker.port();
            Socket first = connect("127.0.0.1", port);
            assertThat(answers(first)).isTrue();
            assertThat(answers(connect("127.0.0.1", port))).isTrue();
            assertThat(answers(connect("127.0.0.1", port)))
                    .as("a third from 127.0.0.1")
                    .isFalse();
            for (int i = 0; i < 3; i++) {
                assertThat(answers(connect("127.0.0.2", port)))
                        .as("127.0.0.2 may hold 3")
                        .isTrue();
            }
            assertThat(answers(connect("127.0.0.2", port)))
                    .as("a fourth from 127.0.0.2")
                    .isFalse();
            first.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> answers(connect("127.0.0.1", port)));
        }
    }

    @Test
    void anAddressOverItsConnectionCreationRateHasNewConnectionsClosedWhileOthersConnect() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("quota.window.num", "2"));
                org.apache.kafka.clients.admin.Admin admin = broker.admin()) {
            admin.alterClientQuotas(List.of(new org.apache.kafka.common.quota.ClientQuotaAlteration(
                            new org.apache.kafka.common.quota.ClientQuotaEntity(Map.of("ip", "127.0.0.3")),
                            List.of(new org.apache.kafka.common.quota.ClientQuotaAlteration.Op(
                                    "connection_creation_rate", 2.0)))))
                    .all()
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            int port = broker.port();
            int refused = 0;
            for (int i = 0; i < 8; i++) {
                if (!answers(connect("127.0.0.3", port))) {
                    refused++;
                }
            }
            assertThat(refused).as("connections from 127.0.0.3 closed").isGreaterThanOrEqualTo(2);
            for (int i = 0; i < 8; i++) {
                assertThat(answers(connect("127.0.0.4", port)))
                        .as("127.0.0.4 has no quota")
                        .isTrue();
            }
        }
    }

    @Test
    void pastMaxConnectionCreationRateNewConnectionsWaitTheirTurn() throws Exception {
        // as in Kafka the broker-wide rate spares the inter-broker listener: the clients' listener is another one
        try (TestBroker broker = TestBroker.start(
                dir,
                Map.of(
                        "max.connection.creation.rate", "10",
                        "quota.window.num", "2",
                        "listeners", "PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
                        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "inter.broker.listener.name", "INTERNAL"))) {
            int port = broker.port();
            long start = System.nanoTime();
            for (int i = 0; i < 30; i++) {
                assertThat(answers(connect("127.0.0.1", port)))
                        .as("connection %d", i)
                        .isTrue();
            }
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            // one second's worth (10) at once, the other 20 at 10 per second
            assertThat(elapsedMs).isGreaterThanOrEqualTo(1_500);
        }
    }
}
