package io.varve.bench.scenario;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.BrokerLauncher;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningBroker;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import io.varve.bench.TlsMaterial;
import io.varve.bench.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * (14): produce and consume throughput and the broker's CPU per GiB over TLS ({@code SSL}) and over {@code SASL_SSL}
 * with SCRAM-SHA-512, both brokers with the same certificates ({@link TlsMaterial}). One broker start per round holds
 * both listeners beside PLAINTEXT (which only the harness's Admin uses: topics, the SCRAM user). Per protocol:
 * ProducerPerformance as in (1), then ConsumerPerformance over the same records, both with {@code --command-config}
 * (Kafka 4.2+), the consumer in a new group; each timed phase metered on its own.
 */
public final class SecuredThroughput implements Scenario {

    static final String[] PROTOCOLS = {"SSL", "SASL_SSL"};
    private static final Duration CREDENTIAL_TIMEOUT = Duration.ofSeconds(60);

    private TlsMaterial tls;

    private static Figure produce(String protocol) {
        return Figure.higher(protocol + " produce throughput", "MiB/s", 1.0);
    }

    private static Figure produceCpu(String protocol) {
        return Figure.lower(protocol + " produce: broker CPU per GiB", "CPU s/GiB", 1.0);
    }

    private static Figure consume(String protocol) {
        return Figure.higher(protocol + " consume throughput (fetch phase)", "MiB/s", 1.0);
    }

    private static Figure consumeCpu(String protocol) {
        return Figure.lower(protocol + " consume: broker CPU per GiB", "CPU s/GiB", 1.0);
    }

    @Override
    public int number() {
        return 13;
    }

    @Override
    public String title() {
        return "Produce and consume over SSL and SASL_SSL (SCRAM-SHA-512), 1 KiB records, "
                + ProduceThroughput.PARTITIONS + " partitions";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return "per protocol: ProducerPerformance --num-records " + sizes.produceRecords() + " --record-size 1024"
                + " --throughput -1 acks=all linger.ms=" + Producing.LINGER_MS + " --command-config <client TLS/SASL"
                + " settings>, then ConsumerPerformance --messages " + sizes.produceRecords() + " --command-config"
                + " (new group); one self-signed RSA-2048 certificate (keytool) for both brokers, TLS as the JDK"
                + " negotiates it (TLSv1.3); SCRAM user made with AlterUserScramCredentials (8192 iterations)"
                + (sizes.warmupRecords() > 0 ? "; " + sizes.warmupRecords() + " untimed warm-up records per protocol" : "");
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        if (tls == null) {
            tls = TlsMaterial.create(context.workDir());
        }
        List<BrokerLauncher.ExtraListener> listeners = new ArrayList<>();
        for (String protocol : PROTOCOLS) {
            listeners.add(new BrokerLauncher.ExtraListener(protocol, BrokerLauncher.freePort(),
                    tls.brokerSettings(protocol)));
        }
        RunningBroker broker = context.freshBroker(kind, label, listeners);
        try {
            createScramUser(broker, listeners.get(1));
            Measurement measurement = new Measurement();
            double cpuSeconds = 0;
            long bytesMoved = 0;
            for (BrokerLauncher.ExtraListener listener : listeners) {
                String protocol = listener.name();
                java.nio.file.Path config = tls.clientConfig(protocol);
                String topic = "bench-" + protocol.toLowerCase(java.util.Locale.ROOT).replace('_', '-') + "-" + label;
                String tag = label + "-" + protocol.toLowerCase(java.util.Locale.ROOT);
                Topics.create(broker, topic, ProduceThroughput.PARTITIONS);
                int warmup = context.sizes().warmupRecords();
                if (warmup > 0) {
                    Topics.create(broker, topic + "-warmup", ProduceThroughput.PARTITIONS);
                    context.tools().produce(tag + "-warmup", listener.bootstrap(), topic + "-warmup", warmup,
                            ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("all"), config);
                }
                int records = context.sizes().produceRecords();
                double cpuAtStart = broker.cpuSeconds();
                PerfTools.ProducerResult produced = context.tools().produce(tag, listener.bootstrap(), topic, records,
                        ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("all"), config);
                double produceCpu = broker.cpuSeconds() - cpuAtStart;
                long producedBytes = produced.records() * ScenarioContext.RECORD_SIZE_BYTES;
                measurement.put(produce(protocol), produced.mibPerSec())
                        .put(produceCpu(protocol), produceCpu / (producedBytes / ScenarioContext.GIB));

                cpuAtStart = broker.cpuSeconds();
                PerfTools.ConsumerResult consumed = context.tools().consume(tag, listener.bootstrap(), topic, records,
                        "bench-" + UUID.randomUUID(), config);
                double consumeCpu = broker.cpuSeconds() - cpuAtStart;
                long consumedBytes = (long) (consumed.mib() * ScenarioContext.MIB);
                measurement.put(consume(protocol), consumed.fetchMibPerSec())
                        .put(consumeCpu(protocol), consumeCpu / (consumedBytes / ScenarioContext.GIB));
                cpuSeconds += produceCpu + consumeCpu;
                bytesMoved += producedBytes + consumedBytes;
            }
            ScenarioContext.putResourceFigures(broker, measurement, cpuSeconds, bytesMoved);
            return measurement;
        } finally {
            context.finish(broker);
        }
    }

    /**
     * The SCRAM user, made over PLAINTEXT with AlterUserScramCredentials (as {@code kafka-configs --alter
     * --add-config 'SCRAM-SHA-512=[...]'} does), then awaited over SASL_SSL until it authenticates: both brokers apply
     * the credential through their metadata log a moment after the request returns.
     */
    private void createScramUser(RunningBroker broker, BrokerLauncher.ExtraListener saslSsl) throws IOException {
        Properties plain = new Properties();
        plain.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        try (Admin admin = Admin.create(plain)) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(TlsMaterial.SCRAM_USER,
                            new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), TlsMaterial.SCRAM_PASSWORD)))
                    .all().get(CREDENTIAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("creating the SCRAM user on " + broker.kind().displayName() + " failed: "
                    + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        Properties secured = new Properties();
        secured.putAll(tls.clientProperties("SASL_SSL"));
        secured.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, saslSsl.bootstrap());
        secured.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000);
        secured.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        long deadline = System.nanoTime() + CREDENTIAL_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (Admin admin = Admin.create(secured)) {
                admin.describeCluster().clusterId().get(5, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | TimeoutException e) {
                last = e;  // not applied yet (authentication failed): a new client, a new attempt
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        throw new IOException("the SCRAM user could not authenticate over SASL_SSL on " + broker.kind().displayName()
                + " within " + CREDENTIAL_TIMEOUT.toSeconds() + " s: " + last);
    }
}
