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
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShareAcknowledge v2's RENEW (KIP-1222) with kafka-clients 4.4: a consumer that renews a record's acquisition lock
 * keeps it past the lock duration, and another consumer of the group does not get it meanwhile; the record is then
 * accepted, once, at its first delivery.
 */
class ShareRenewIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void aRenewedRecordStaysWithItsConsumerPastTheLockDuration() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir, ShareClients.brokerOverrides())) {
            try (Admin admin = broker.admin()) {
                admin.createTopics(List.of(new NewTopic("renewed", 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of());
                    KafkaShareConsumer<String, String> holder = consumer(broker);
                    KafkaShareConsumer<String, String> other = consumer(broker)) {
                ConsumerRecord<String, String> held = null;
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (held == null) {
                    assertThat(System.nanoTime()).as("the holder got a record").isLessThan(deadline);
                    producer.send(new ProducerRecord<>("renewed", 0, null, "job".getBytes(StandardCharsets.UTF_8)));
                    producer.flush();
                    for (ConsumerRecord<String, String> r : holder.poll(Duration.ofMillis(300))) {
                        if (held == null) {
                            held = r;
                        } else {
                            holder.acknowledge(r, AcknowledgeType.ACCEPT);
                        }
                    }
                }
                // renew for three lock durations while the other consumer polls
                List<ConsumerRecord<String, String>> othersGot = new ArrayList<>();
                long renewUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3L * ShareClients.LOCK_MS);
                long heldOffset = held.offset();
                int renewals = 0;
                while (System.nanoTime() < renewUntil) {
                    holder.acknowledge(held, AcknowledgeType.RENEW);
                    Map<TopicIdPartition, Optional<KafkaException>> renewed = holder.commitSync();
                    assertThat(renewed.values()).as("renewal %d", renewals).allMatch(Optional::isEmpty);
                    renewals++;
                    for (ConsumerRecord<String, String> r : other.poll(Duration.ofMillis(ShareClients.LOCK_MS / 3))) {
                        othersGot.add(r);
                        other.acknowledge(r, AcknowledgeType.ACCEPT);
                    }
                    other.commitSync();
                    // a renewed record comes back from the holder's next poll, to be acknowledged again
                    ConsumerRecord<String, String> back = null;
                    while (back == null) {
                        assertThat(System.nanoTime())
                                .as("the renewed record came back")
                                .isLessThan(deadline);
                        for (ConsumerRecord<String, String> r : holder.poll(Duration.ofMillis(200))) {
                            if (r.offset() == heldOffset) {
                                back = r;
                            } else {
                                holder.acknowledge(r, AcknowledgeType.ACCEPT);
                            }
                        }
                    }
                    held = back;
                }
                assertThat(renewals).as("renewals over three lock durations").isGreaterThanOrEqualTo(3);
                assertThat(othersGot)
                        .as("the renewed record did not go to the other consumer")
                        .noneMatch(r -> r.offset() == heldOffset);
                holder.acknowledge(held, AcknowledgeType.ACCEPT);
                Map<TopicIdPartition, Optional<KafkaException>> accepted = holder.commitSync();
                assertThat(accepted.values()).as("the holder still held it").allMatch(Optional::isEmpty);
                assertThat(held.deliveryCount()).isEqualTo(Optional.of((short) 1));
            }
        }
    }

    private static KafkaShareConsumer<String, String> consumer(TestBroker broker) {
        KafkaShareConsumer<String, String> c = ShareClients.consumer(broker.bootstrap(), "g-renew", "explicit", 1);
        c.subscribe(List.of("renewed"));
        return c;
    }
}
