package io.varve.metadata.image;

import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * Topic changes accumulated from records on top of a base {@link TopicsImage}. A record that does
 * not fit the current state (a partition of an unknown topic, a second topic of one name) breaks an
 * invariant of the log and throws.
 */
public final class TopicsDelta {

    private final TopicsImage base;
    private final Map<Uuid, TopicDelta> changedTopics = new LinkedHashMap<>();
    private final Map<Uuid, TopicImage> deletedTopics = new LinkedHashMap<>();
    private final Map<String, Uuid> createdTopicIdsByName = new HashMap<>();

    TopicsDelta(TopicsImage base) {
        this.base = base;
    }

    public TopicsImage base() {
        return base;
    }

    /** Topics created or changed by this delta, by id (a topic created and deleted within it is absent). */
    public Map<Uuid, TopicDelta> changedTopics() {
        return Collections.unmodifiableMap(changedTopics);
    }

    /** Topics of the base image that this delta deleted, as they were before. */
    public Map<Uuid, TopicImage> deletedTopics() {
        return Collections.unmodifiableMap(deletedTopics);
    }

    public Set<Uuid> createdTopicIds() {
        return changedTopics.values().stream()
                .filter(TopicDelta::isCreated)
                .map(TopicDelta::id)
                .collect(Collectors.toUnmodifiableSet());
    }

    void replay(TopicRecord record) {
        if (liveTopicId(record.name()) != null) {
            throw new IllegalStateException(
                    "topic " + record.name() + " already exists; cannot create it as " + record.topicId());
        }
        if (base.getTopic(record.topicId()) != null || changedTopics.containsKey(record.topicId())) {
            throw new IllegalStateException("topic id " + record.topicId() + " is already in use");
        }
        changedTopics.put(record.topicId(), TopicDelta.created(record.name(), record.topicId()));
        createdTopicIdsByName.put(record.name(), record.topicId());
    }

    void replay(PartitionRecord record) {
        topicDelta(record.topicId(), record.partitionId()).replay(record);
    }

    void replay(PartitionChangeRecord record) {
        topicDelta(record.topicId(), record.partitionId()).replay(record);
    }

    private TopicDelta topicDelta(Uuid topicId, int partitionId) {
        TopicDelta topic = changedTopics.get(topicId);
        if (topic == null) {
            TopicImage existing = base.getTopic(topicId);
            if (existing == null || deletedTopics.containsKey(topicId)) {
                throw new IllegalStateException("partition " + partitionId + " of unknown topic id " + topicId);
            }
            topic = TopicDelta.changed(existing);
            changedTopics.put(topicId, topic);
        }
        return topic;
    }

    /** Removes the topic and returns its name. */
    String replay(RemoveTopicRecord record) {
        TopicDelta changed = changedTopics.remove(record.topicId());
        if (changed != null && changed.isCreated()) {
            createdTopicIdsByName.remove(changed.name());
            return changed.name();
        }
        TopicImage existing = base.getTopic(record.topicId());
        if (existing == null || deletedTopics.containsKey(record.topicId())) {
            throw new IllegalStateException("cannot remove unknown topic id " + record.topicId());
        }
        deletedTopics.put(existing.id(), existing);
        return existing.name();
    }

    /** The id of the topic currently named so (after this delta's changes), or null. */
    private Uuid liveTopicId(String name) {
        Uuid created = createdTopicIdsByName.get(name);
        if (created != null) {
            return created;
        }
        TopicImage existing = base.getTopic(name);
        return existing == null || deletedTopics.containsKey(existing.id()) ? null : existing.id();
    }

    TopicsImage apply() {
        Map<Uuid, TopicImage> topics = new HashMap<>(base.topicsById());
        deletedTopics.keySet().forEach(topics::remove);
        changedTopics.forEach((id, delta) -> topics.put(id, delta.apply()));
        return new TopicsImage(topics);
    }
}
