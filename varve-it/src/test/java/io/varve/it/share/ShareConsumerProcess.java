package io.varve.it.share;

import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * A share consumer in its own process, for the test that kills one: explicit acknowledgement; it polls until it
 * receives records, prints each value on its own line, then holds them unacknowledged until it is killed.
 * Arguments: bootstrap, topic, group.
 */
public final class ShareConsumerProcess {
    private ShareConsumerProcess() {}

    public static void main(String[] args) throws InterruptedException {
        try (KafkaShareConsumer<String, String> consumer = ShareClients.consumer(args[0], args[2], "explicit", 50)) {
            consumer.subscribe(List.of(args[1]));
            boolean received = false;
            while (!received) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    System.out.println("got " + r.value());
                    received = true;
                }
            }
            System.out.println("holding");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE); // the test kills this process
        }
    }
}
