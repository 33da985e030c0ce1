package io.varve.metadata.image;

import io.varve.metadata.record.ClientQuotaRecord;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.ProducerIdsRecord;
import io.varve.metadata.record.RemoveAccessControlEntryRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.RemoveUserScramCredentialRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The delta from one image to an unrelated later one: what a replica publishes when a snapshot replaces its state
 * (a follower far behind installs the leader's snapshot). Publishers act on deltas ("deleted", "created",
 * "changed"), so a snapshot must not reach them as a fresh image built from nothing: a topic deleted while this
 * replica was away would never be deleted here. Pure.
 *
 * <p>The delta is the replay, on {@code before}, of records that turn it into {@code after}: removals of topics
 * and brokers {@code after} lacks first (a name deleted and created again gets a new id), then topics and
 * partitions that are new or differ, registrations that differ, every config and feature level that differs,
 * the producer-id state, the SCRAM credentials, the ACLs, the client quotas and the delegation tokens. Its {@link MetadataDelta#apply} equals {@code after} but for the offset.
 */
public final class MetadataImageDiff {

    private MetadataImageDiff() {}

    /**
     * @throws IllegalStateException if {@code after} cannot follow {@code before} (producer ids went back)
     */
    public static MetadataDelta between(MetadataImage before, MetadataImage after) {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        MetadataDelta delta = new MetadataDelta(before);
        Set<String> removedTopicNames = diffTopics(before.topics(), after.topics(), delta);
        diffBrokers(before.cluster(), after.cluster(), delta);
        diffConfigs(before.configs(), after.configs(), removedTopicNames, delta);
        diffFeatures(before.features(), after.features(), delta);
        long nextProducerId = after.producerIds().nextProducerId();
        if (nextProducerId != before.producerIds().nextProducerId()) {
            delta.replay(new ProducerIdsRecord(-1, nextProducerId));
        }
        diffScram(before.scram(), after.scram(), delta);
        before.acls().acls().keySet().stream()
                .filter(id -> !after.acls().acls().containsKey(id))
                .forEach(id -> delta.replay(new RemoveAccessControlEntryRecord(id)));
        after.acls().acls().values().stream()
                .filter(acl -> !before.acls().acls().containsKey(acl.id()))
                .forEach(delta::replay);
        diffClientQuotas(before.clientQuotas(), after.clientQuotas(), delta);
        before.delegationTokens().tokens().keySet().stream()
                .filter(id -> !after.delegationTokens().tokens().containsKey(id))
                .forEach(id -> delta.replay(new io.varve.metadata.record.RemoveDelegationTokenRecord(id)));
        after.delegationTokens().tokens().values().stream()
                .filter(token ->
                        !token.equals(before.delegationTokens().tokens().get(token.tokenId())))
                .forEach(delta::replay);
        return delta;
    }

    private static void diffClientQuotas(ClientQuotasImage before, ClientQuotasImage after, MetadataDelta delta) {
        before.entities().forEach((entity, quotas) -> quotas.keySet().forEach(key -> {
            if (!after.quotas(entity).containsKey(key)) {
                delta.replay(new ClientQuotaRecord(entity, key, 0, true));
            }
        }));
        after.entities()
                .forEach((entity, quotas) -> quotas.forEach((key, value) -> {
                    if (!value.equals(before.quotas(entity).get(key))) {
                        delta.replay(new ClientQuotaRecord(entity, key, value, false));
                    }
                }));
    }

    private static void diffScram(ScramImage before, ScramImage after, MetadataDelta delta) {
        before.users().forEach((user, byMechanism) -> byMechanism.keySet().forEach(mechanism -> {
            if (after.credential(user, mechanism).isEmpty()) {
                delta.replay(new RemoveUserScramCredentialRecord(user, mechanism));
            }
        }));
        after.users()
                .forEach((user, byMechanism) -> byMechanism.forEach((mechanism, credential) -> {
                    if (!before.credential(user, mechanism).equals(java.util.Optional.of(credential))) {
                        delta.replay(credential);
                    }
                }));
    }

    /** Returns the names of the topics removed (their configs went with them). */
    private static Set<String> diffTopics(TopicsImage before, TopicsImage after, MetadataDelta delta) {
        Set<String> removed = new HashSet<>();
        for (TopicImage gone : before.topicsById().values()) {
            if (after.getTopic(gone.id()) == null) {
                delta.replay(new RemoveTopicRecord(gone.id()));
                removed.add(gone.name());
            }
        }
        for (TopicImage topic : after.topicsById().values()) {
            TopicImage old = before.getTopic(topic.id());
            if (old != null && !old.name().equals(topic.name())) {
                throw new IllegalStateException("topic id " + topic.id() + " is named " + old.name() + " here and "
                        + topic.name() + " in the newer image");
            }
            if (old == null) {
                delta.replay(new TopicRecord(topic.name(), topic.id()));
            }
            if (old != null && old.equals(topic)) {
                continue;
            }
            new TreeMap<>(topic.partitions()).forEach((partitionId, partition) -> {
                PartitionImage previous = old == null ? null : old.partition(partitionId);
                if (!partition.equals(previous)) {
                    PartitionRecord record = partition.toRecord(topic.id(), partitionId);
                    delta.replay(record);
                }
            });
        }
        return removed;
    }

    private static void diffBrokers(ClusterImage before, ClusterImage after, MetadataDelta delta) {
        for (BrokerRegistration gone : before.brokers().values()) {
            if (after.broker(gone.id()) == null) {
                delta.replay(new UnregisterBrokerRecord(gone.id(), gone.epoch()));
            }
        }
        for (BrokerRegistration broker : after.brokers().values()) {
            if (!broker.equals(before.broker(broker.id()))) {
                delta.replay(broker.toRecord());
            }
        }
    }

    private static void diffConfigs(
            ConfigsImage before, ConfigsImage after, Set<String> removedTopicNames, MetadataDelta delta) {
        Set<ConfigResource> resources = new HashSet<>(before.resources().keySet());
        resources.addAll(after.resources().keySet());
        for (ConfigResource resource : resources) {
            boolean removedWithTopic =
                    resource.type() == ConfigResourceType.TOPIC && removedTopicNames.contains(resource.name());
            Map<String, String> old = removedWithTopic ? Map.of() : before.configs(resource);
            Map<String, String> now = after.configs(resource);
            if (old.equals(now)) {
                continue;
            }
            Set<String> names = new HashSet<>(old.keySet());
            names.addAll(now.keySet());
            for (String name : names) {
                String value = now.get(name);
                if (!Objects.equals(old.get(name), value)) {
                    delta.replay(new ConfigRecord(resource.type(), resource.name(), name, value));
                }
            }
        }
    }

    private static void diffFeatures(FeaturesImage before, FeaturesImage after, MetadataDelta delta) {
        Set<String> names = new HashSet<>(before.finalizedLevels().keySet());
        names.addAll(after.finalizedLevels().keySet());
        for (String name : names) {
            short level = after.level(name);
            if (level != before.level(name)) {
                delta.replay(new FeatureLevelRecord(name, level));
            }
        }
    }
}
