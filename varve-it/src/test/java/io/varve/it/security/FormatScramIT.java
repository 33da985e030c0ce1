package io.varve.it.security;

import static io.varve.it.security.SecurityClients.admin;
import static io.varve.it.security.SecurityClients.scram;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code varve format --add-scram}, as Kafka's {@code kafka-storage format --add-scram}: a node formatted with SCRAM
 * users serves them on its very first start, before anyone could have created them at run time.
 */
class FormatScramIT {
    @TempDir
    Path dir;

    @Test
    void aNodeFormattedWithAScramUserServesItOnItsFirstStart() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "1");
        props.put("log.dirs", dir.resolve("data").toString());
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512");
        Path config = dir.resolve("server.properties");
        Properties p = new Properties();
        p.putAll(props);
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            p.store(w, null);
        }
        String clusterId = Uuid.randomUuid().toString();
        ToolRun format = varve(
                "format",
                "--config",
                config.toString(),
                "--cluster-id",
                clusterId,
                "--add-scram",
                "SCRAM-SHA-256=[name=alice,password=alice-secret]",
                "--add-scram",
                "SCRAM-SHA-512=[name=bob,password=\"bob-secret\",iterations=8192]");
        assertThat(format.exitCode()).as(format.output()).isZero();
        String written = Files.readString(dir.resolve("data").resolve("bootstrap-scram-credentials"));
        assertThat(written).doesNotContain("alice-secret").doesNotContain("bob-secret");

        try (TestBroker broker = TestBroker.start(dir.resolve("data"), props)) {
            int port = broker.broker().boundPort("SASL_PLAINTEXT");
            assertThat(clusterIdAs(port, "SCRAM-SHA-256", "alice", "alice-secret"))
                    .isEqualTo(clusterId);
            assertThat(clusterIdAs(port, "SCRAM-SHA-512", "bob", "bob-secret")).isEqualTo(clusterId);
            assertThatThrownBy(() -> clusterIdAs(port, "SCRAM-SHA-256", "alice", "wrong"))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void aMalformedAddScramIsRefusedWithOneSentence() throws Exception {
        ToolRun format = varve(
                "format",
                "--override",
                "node.id=1",
                "--override",
                "log.dirs=" + dir.resolve("data"),
                "--cluster-id",
                Uuid.randomUuid().toString(),
                "--add-scram",
                "SCRAM-SHA-1=[name=alice,password=x]");
        assertThat(format.exitCode()).isEqualTo(2);
        assertThat(format.output()).contains("which is not a SCRAM mechanism: use SCRAM-SHA-256 or SCRAM-SHA-512");
        assertThat(dir.resolve("data").resolve("meta.properties")).doesNotExist();
    }

    private static String clusterIdAs(int port, String mechanism, String user, String password) throws Exception {
        try (Admin admin = admin(scram("127.0.0.1:" + port, "SASL_PLAINTEXT", mechanism, user, password))) {
            return admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS);
        }
    }

    private ToolRun varve(String... args) throws Exception {
        return ToolRun.run(dir, "io.varve.cli.Varve", args);
    }
}
