package io.varve.it.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Share-partition state survives a broker restart (__share_group_state): accepted records are not delivered again. */
class ShareStateRestartIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void acceptedRecordsAreNotDeliveredAgainAfterARestart() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir, ShareClients.brokerOverrides())) {
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(new NewTopic("durable", 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of("linger.ms", 100));
                    KafkaShareConsumer<String, String> c = consumer(broker)) {
                // the group starts at the partition's end: warm up until the consumer gets a record
                List<ConsumerRecord<String, String>> first = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (first.isEmpty()) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    send(producer, "warm");
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(300))) {
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        first.add(r);
                    }
                }
                c.commitSync();
                for (int i = 0; i < 10; i++) {
                    producer.send(record("r" + i));
                }
                producer.flush();
                List<String> got = new ArrayList<>();
                while (got.size() < 10) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        if (r.value().equals("warm")) {
                            c.acknowledge(r, AcknowledgeType.ACCEPT);
                            continue;
                        }
                        // accept the first five, release the rest
                        int i = Integer.parseInt(r.value().substring(1));
                        c.acknowledge(r, i < 5 ? AcknowledgeType.ACCEPT : AcknowledgeType.RELEASE);
                        got.add(r.value());
                    }
                    c.commitSync();
                }
            }
            broker.restart();
            try (KafkaShareConsumer<String, String> c = consumer(broker)) {
                List<ConsumerRecord<String, String>> again = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (again.size() < 5) {
                    assertThat(System.nanoTime())
                            .as("redelivered so far: %s", again)
                            .isLessThan(deadline);
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        again.add(r);
                    }
                    c.commitSync();
                }
                assertThat(again).extracting(ConsumerRecord::value).containsExactly("r5", "r6", "r7", "r8", "r9");
                assertThat(again.get(0).deliveryCount()).isEqualTo(Optional.of((short) 2));
            }
        }
    }

    private static KafkaShareConsumer<String, String> consumer(TestBroker broker) {
        KafkaShareConsumer<String, String> c = ShareClients.consumer(broker.bootstrap(), "g-durable", "explicit", 50);
        c.subscribe(List.of("durable"));
        return c;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String value) {
        producer.send(record(value));
        producer.flush();
    }

    private static ProducerRecord<byte[], byte[]> record(String value) {
        return new ProducerRecord<>("durable", 0, null, value.getBytes(StandardCharsets.UTF_8));
    }
}
