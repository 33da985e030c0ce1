package io.varve.it.share;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Broker settings and share consumers for the share group tests: short locks, a small offsets topic. */
final class ShareClients {
    /** The acquisition lock the test brokers use ({@code group.share.record.lock.duration.ms}). */
    static final int LOCK_MS = 3000;

    private ShareClients() {}

    static Map<String, String> brokerOverrides() {
        Map<String, String> o = new HashMap<>();
        o.put("offsets.topic.num.partitions", "4");
        o.put("share.coordinator.state.topic.num.partitions", "4");
        o.put("group.share.min.record.lock.duration.ms", "1000");
        o.put("group.share.record.lock.duration.ms", Integer.toString(LOCK_MS));
        o.put("group.share.min.session.timeout.ms", "2000");
        o.put("group.share.session.timeout.ms", "6000");
        o.put("group.share.min.heartbeat.interval.ms", "200");
        o.put("group.share.heartbeat.interval.ms", "500");
        o.put("group.share.delivery.count.limit", "3");
        return o;
    }

    /** {@code mode}: "implicit" (each poll accepts the previous records) or "explicit". */
    static Properties consumerConfig(String bootstrap, String groupId, String mode, int maxPollRecords) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        p.put("share.acknowledgement.mode", mode);
        return p;
    }

    static KafkaShareConsumer<String, String> consumer(
            String bootstrap, String groupId, String mode, int maxPollRecords) {
        return new KafkaShareConsumer<>(consumerConfig(bootstrap, groupId, mode, maxPollRecords));
    }
}
