package io.varve.it.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.broker.Broker;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.it.TestBroker;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a node does when its HTTP listener cannot be bound. */
class HttpListenerStartIT {
    @TempDir
    Path dir;

    @Test
    void aConfiguredHttpListenerThatCannotBeBoundStopsTheStartWithOneSentenceNamingTheKey() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            String endpoint = "http://127.0.0.1:" + taken.getLocalPort();
            TestBroker broker = new TestBroker(dir.resolve("a"), Map.of("varve.http.listeners", endpoint));
            try {
                assertThatThrownBy(broker::startNode)
                        .isInstanceOf(ConfigException.class)
                        .hasMessageStartingWith("varve.http.listeners: cannot bind " + endpoint);
            } finally {
                broker.close();
            }
        }
    }

    @Test
    void whenTheDefaultPortIsTakenTheNodeStartsWithoutHttp() throws Exception {
        // Another node on this host holds localhost:9644 (or another process does: the same case).
        ServerSocket taken = null;
        try {
            try {
                taken = new ServerSocket(9644, 1, InetAddress.getByName("localhost"));
            } catch (java.io.IOException alreadyTaken) {
                // held by someone else
            }
            Map<String, String> props = Map.of(
                    "node.id",
                    "1",
                    "listeners",
                    "PLAINTEXT://127.0.0.1:0",
                    "log.dirs",
                    dir.resolve("b").toString());
            try (Broker node = new Broker(BrokerConfig.fromMap(props))) {
                node.start();
                assertThat(node.boundPort("PLAINTEXT")).isPositive();
            }
        } finally {
            if (taken != null) {
                taken.close();
            }
        }
    }
}
