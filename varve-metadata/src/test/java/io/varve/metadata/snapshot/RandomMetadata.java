package io.varve.metadata.snapshot;

import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.PartitionImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.BrokerFlagChange;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.ProducerIdsRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.Uuid;

/**
 * Random but valid metadata histories: each step looks at the current image and picks a record that applies to
 * it (a topic with its partitions, a partition change that keeps the leader in the ISR, a removal, a config, a
 * broker registration, fencing or unregistration, a feature level, a producer-id block). Seeded: one seed, one
 * history.
 */
final class RandomMetadata {
    private final Random random;
    private MetadataImage image;
    private long offset;

    RandomMetadata(long seed, MetadataImage start) {
        this.random = new Random(seed);
        this.image = start;
        this.offset = start.offset();
    }

    MetadataImage image() {
        return image;
    }

    /** Applies {@code batches} random batches of 1 to 5 records each; returns every record applied. */
    List<MetadataRecord> run(int batches) {
        List<MetadataRecord> applied = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            MetadataDelta delta = new MetadataDelta(image);
            int records = 1 + random.nextInt(5);
            for (int r = 0; r < records; r++) {
                List<MetadataRecord> step = step(delta.apply(offset));
                step.forEach(delta::replay);
                applied.addAll(step);
                offset += step.size();
            }
            image = delta.apply(offset);
        }
        return applied;
    }

    private List<MetadataRecord> step(MetadataImage now) {
        int kind = random.nextInt(10);
        List<TopicImage> topics = new ArrayList<>(now.topics().topicsById().values());
        topics.sort((a, b) -> a.name().compareTo(b.name()));
        List<BrokerRegistration> brokers =
                new ArrayList<>(now.cluster().brokers().values());
        if (topics.size() >= 30) {
            return List.of(new RemoveTopicRecord(
                    topics.get(random.nextInt(topics.size())).id()));
        } else if (kind <= 2 || (kind <= 4 && topics.isEmpty())) {
            return createTopic(now);
        } else if (kind <= 4) {
            return List.of(changePartition(topics.get(random.nextInt(topics.size()))));
        } else if (kind == 5 && !topics.isEmpty()) {
            return List.of(new RemoveTopicRecord(
                    topics.get(random.nextInt(topics.size())).id()));
        } else if (kind == 6) {
            return List.of(config(topics));
        } else if (kind == 7 || brokers.isEmpty()) {
            return List.of(register(random.nextInt(6)));
        } else if (kind == 8) {
            BrokerRegistration broker = brokers.get(random.nextInt(brokers.size()));
            if (random.nextInt(4) == 0) {
                return List.of(new UnregisterBrokerRecord(broker.id(), broker.epoch()));
            }
            boolean fence = !broker.fenced();
            return List.of(new BrokerRegistrationChangeRecord(
                    broker.id(),
                    broker.epoch(),
                    fence ? BrokerFlagChange.SET : BrokerFlagChange.CLEARED,
                    broker.inControlledShutdown() && fence ? BrokerFlagChange.CLEARED : BrokerFlagChange.UNCHANGED));
        } else if (random.nextBoolean()) {
            String name = random.nextBoolean() ? "metadata.version" : "feature." + random.nextInt(3);
            return List.of(new FeatureLevelRecord(name, (short) random.nextInt(4)));
        }
        return List.of(new ProducerIdsRecord(
                random.nextInt(3), now.producerIds().nextProducerId() + 1 + random.nextInt(1000)));
    }

    private List<MetadataRecord> createTopic(MetadataImage now) {
        String name;
        do {
            name = "topic-" + random.nextInt(40);
        } while (now.topics().getTopic(name) != null);
        Uuid id = new Uuid(random.nextLong(), random.nextLong());
        List<MetadataRecord> records = new ArrayList<>();
        records.add(new TopicRecord(name, id));
        int partitions = 1 + random.nextInt(4);
        for (int p = 0; p < partitions; p++) {
            int[] replicas = replicas();
            int[] isr = Arrays.copyOf(replicas, 1 + random.nextInt(replicas.length));
            // Replicas outside the ISR may be eligible leaders (KIP-966) or the last known ones: snapshots keep both.
            int[] outside = Arrays.copyOfRange(replicas, isr.length, replicas.length);
            int[] elr = random.nextBoolean() ? outside : new int[0];
            int[] lastKnownElr = elr.length == 0 && random.nextBoolean() ? outside : new int[0];
            records.add(new PartitionRecord(
                    id,
                    p,
                    replicas,
                    isr,
                    isr[0],
                    random.nextInt(3),
                    random.nextInt(3),
                    new int[0],
                    new int[0],
                    elr,
                    lastKnownElr));
        }
        return records;
    }

    private int[] replicas() {
        int count = 1 + random.nextInt(3);
        int first = random.nextInt(6);
        int[] replicas = new int[count];
        for (int i = 0; i < count; i++) {
            replicas[i] = (first + i) % 6;
        }
        return replicas;
    }

    private MetadataRecord changePartition(TopicImage topic) {
        int partitionId = random.nextInt(topic.numPartitions());
        PartitionImage partition = topic.partition(partitionId);
        int[] replicas = partition.replicas();
        int[] isr = Arrays.copyOf(replicas, 1 + random.nextInt(replicas.length));
        int leader = random.nextInt(5) == 0 ? PartitionChangeRecord.NO_LEADER : isr[random.nextInt(isr.length)];
        int[] outside = Arrays.copyOfRange(replicas, isr.length, replicas.length);
        int[] elr = random.nextBoolean() ? outside : new int[0];
        return new PartitionChangeRecord(topic.id(), partitionId, isr, leader, null, null, null, elr, null);
    }

    private MetadataRecord config(List<TopicImage> topics) {
        String value = random.nextInt(4) == 0 ? null : Integer.toString(random.nextInt(100));
        String name = "key." + random.nextInt(4);
        if (!topics.isEmpty() && random.nextBoolean()) {
            return new ConfigRecord(
                    ConfigResourceType.TOPIC,
                    topics.get(random.nextInt(topics.size())).name(),
                    name,
                    value);
        }
        String broker = random.nextBoolean() ? "" : Integer.toString(random.nextInt(6));
        return new ConfigRecord(ConfigResourceType.BROKER, broker, name, value);
    }

    private MetadataRecord register(int brokerId) {
        return new RegisterBrokerRecord(
                brokerId,
                new Uuid(random.nextLong(), random.nextLong()),
                offset + 1,
                List.of(new Endpoint("PLAINTEXT", "localhost", 9092 + brokerId, "PLAINTEXT")),
                random.nextBoolean() ? null : "rack-" + random.nextInt(3),
                Map.of("metadata.version", new VersionRange((short) 1, (short) 3)),
                random.nextBoolean(),
                false);
    }
}
