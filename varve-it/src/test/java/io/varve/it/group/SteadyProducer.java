package io.varve.it.group;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.TestBroker;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Produces sequence numbers round-robin over the partitions, about one per millisecond, until stopped. */
final class SteadyProducer implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger sent = new AtomicInteger();
    private final Thread thread;
    private volatile Throwable failure;

    SteadyProducer(TestBroker broker, String topic, int partitions) {
        KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of("linger.ms", "5"));
        thread = new Thread(
                () -> {
                    try (producer) {
                        int seq = 0;
                        while (running.get() && seq < 1_000_000) {
                            producer.send(new ProducerRecord<>(
                                    topic,
                                    seq % partitions,
                                    null,
                                    Integer.toString(seq).getBytes(UTF_8)));
                            seq++;
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // pacing, not synchronisation
                        }
                        producer.flush();
                        sent.set(seq);
                    } catch (Throwable t) {
                        failure = t;
                    }
                },
                "steady-producer");
        thread.start();
    }

    /** Stops producing and returns how many records were acknowledged (all of them: flush waits). */
    int stop() throws InterruptedException {
        running.set(false);
        thread.join(30_000);
        assertThat(failure).as("producer failure").isNull();
        return sent.get();
    }

    @Override
    public void close() throws InterruptedException {
        if (thread.isAlive()) {
            stop();
        }
    }
}
