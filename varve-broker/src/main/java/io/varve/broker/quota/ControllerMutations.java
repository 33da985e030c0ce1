package io.varve.broker.quota;

import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.TopicImage;
import java.util.function.Supplier;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What {@code controller_mutation_rate} counts (KIP-599): the partitions a CreateTopics, CreatePartitions or
 * DeleteTopics request creates or deletes, and from which version a client is refused (THROTTLING_QUOTA_EXCEEDED)
 * instead of throttled: CreateTopics v6, CreatePartitions v3, DeleteTopics v5.
 */
final class ControllerMutations {
    private final Supplier<MetadataImage> image;
    private final int defaultPartitions;

    ControllerMutations(Supplier<MetadataImage> image, int defaultPartitions) {
        this.image = image;
        this.defaultPartitions = defaultPartitions;
    }

    static boolean counted(ApiKeys api) {
        return api == ApiKeys.CREATE_TOPICS || api == ApiKeys.CREATE_PARTITIONS || api == ApiKeys.DELETE_TOPICS;
    }

    /** True when this version is answered THROTTLING_QUOTA_EXCEEDED over the quota (older ones are throttled). */
    static boolean strict(ApiKeys api, short version) {
        return switch (api) {
            case CREATE_TOPICS -> version >= 6;
            case CREATE_PARTITIONS -> version >= 3;
            case DELETE_TOPICS -> version >= 5;
            default -> false;
        };
    }

    /** The partitions the request would create or delete (validate-only requests count nothing). */
    int partitions(ApiKeys api, ApiMessage body) {
        MetadataImage current = image.get();
        int count = 0;
        if (body instanceof CreateTopicsRequestData create) {
            if (create.validateOnly()) {
                return 0;
            }
            for (CreateTopicsRequestData.CreatableTopic t : create.topics()) {
                count += !t.assignments().isEmpty()
                        ? t.assignments().size()
                        : t.numPartitions() > 0 ? t.numPartitions() : defaultPartitions;
            }
        } else if (body instanceof CreatePartitionsRequestData create) {
            if (create.validateOnly()) {
                return 0;
            }
            for (CreatePartitionsRequestData.CreatePartitionsTopic t : create.topics()) {
                TopicImage topic = current.topics().getTopic(t.name());
                count += Math.max(
                        0, t.count() - (topic == null ? 0 : topic.partitions().size()));
            }
        } else if (body instanceof DeleteTopicsRequestData delete) {
            for (DeleteTopicsRequestData.DeleteTopicState t : delete.topics()) {
                TopicImage topic = t.name() != null
                        ? current.topics().getTopic(t.name())
                        : current.topics().getTopic(t.topicId());
                count += topic == null ? 0 : topic.partitions().size();
            }
            for (String name : delete.topicNames()) {
                TopicImage topic = current.topics().getTopic(name);
                count += topic == null ? 0 : topic.partitions().size();
            }
        }
        return count;
    }
}
