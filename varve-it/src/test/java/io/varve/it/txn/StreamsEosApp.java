package io.varve.it.txn;

import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The Kafka Streams application of {@link StreamsExactlyOnceIT} (and of the cluster's
 * {@code StreamsCoordinatorFailoverIT}): amounts keyed by user are regrouped by bucket
 * (amount modulo {@link #BUCKETS}, through a repartition topic) and summed in a state store; every update of a sum
 * goes to the output topic. Runs in the test JVM or, through {@link #main}, as a child process the test kills.
 */
public final class StreamsEosApp {
    public static final int BUCKETS = 6;

    private StreamsEosApp() {}

    public static String bucketOf(long amount) {
        return "bucket-" + (amount % BUCKETS);
    }

    public static Topology topology(String input, String output) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.Long()))
                .groupBy((user, amount) -> bucketOf(amount), Grouped.with("by-bucket", Serdes.String(), Serdes.Long()))
                .aggregate(
                        () -> 0L,
                        (bucket, amount, sum) -> sum + amount,
                        Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("sums")
                                .withKeySerde(Serdes.String())
                                .withValueSerde(Serdes.Long()))
                .toStream()
                .to(output, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /**
     * exactly_once_v2 with 2 stream threads, no record cache (one output record per input record), fast commits,
     * and short session and transaction timeouts so that a killed instance's work moves on within seconds.
     */
    public static Properties config(String bootstrap, String applicationId, Path stateDir) {
        return config(bootstrap, applicationId, stateDir, "classic");
    }

    /**
     * {@code groupProtocol} "classic" (the consumer group protocol with the client-side assignor) or "streams"
     * (KIP-1071: the broker assigns the tasks; session and heartbeat times are then the broker's
     * {@code group.streams.*} settings).
     */
    public static Properties config(String bootstrap, String applicationId, Path stateDir, String groupProtocol) {
        Properties p = new Properties();
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, groupProtocol);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 2000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 300);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 4000);
        return p;
    }

    /** {@code bootstrap applicationId stateDir input output [groupProtocol]}: runs until the process is killed. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length != 5 && args.length != 6) {
            throw new IllegalArgumentException("usage: bootstrap applicationId stateDir input output [groupProtocol]");
        }
        String protocol = args.length == 6 ? args[5] : "classic";
        KafkaStreams streams =
                new KafkaStreams(topology(args[3], args[4]), config(args[0], args[1], Path.of(args[2]), protocol));
        streams.start();
        new CountDownLatch(1).await();
    }
}
