package io.varve.metadata.controller;

import io.varve.metadata.config.TopicConfigDef;
import io.varve.metadata.image.ClusterImage;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.TopicImage;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.ConfigResourceType;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.TopicRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Decides topic creation, deletion and partition additions against a metadata image, with Kafka 4.x's validation rules
 * and messages. Pure: no I/O, no threads; results carry the records to write.
 */
public final class TopicControl {
    /**
     * Most partitions one CreateTopics or CreatePartitions request may create, as in Kafka 4.x (KAFKA-17870): they
     * are written as one atomic batch, which must fit the metadata log's batch limit and one follower fetch.
     */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;

    static final String TOO_MANY_PARTITIONS = "Excessively large number of partitions per request.";

    private final ControllerConfig config;
    private final ReplicaPlacer placer;
    private final Supplier<Uuid> topicIdGenerator;

    public TopicControl(ControllerConfig config, ReplicaPlacer placer, Supplier<Uuid> topicIdGenerator) {
        this.config = config;
        this.placer = placer;
        this.topicIdGenerator = topicIdGenerator;
    }

    /**
     * Validates each topic in order (later topics see the earlier ones of the same request) and
     * returns one result per request entry, plus the records creating the valid topics unless
     * {@code validateOnly}.
     */
    public ControllerResult<List<CreateTopicResult>> createTopics(
            MetadataImage image, List<CreateTopicRequest> requests, boolean validateOnly) {
        long requestedPartitions = 0;
        for (CreateTopicRequest request : requests) {
            requestedPartitions += !request.assignments().isEmpty()
                    ? request.assignments().size()
                    : request.numPartitions() == -1
                            ? config.defaultNumPartitions()
                            : Math.max(0, request.numPartitions());
        }
        if (requestedPartitions > MAX_PARTITIONS_PER_REQUEST) {
            throw new PolicyViolationException(TOO_MANY_PARTITIONS);
        }
        Set<String> duplicateNames =
                duplicates(requests.stream().map(CreateTopicRequest::name).toList());
        Map<String, String> namesByCollisionKey = new HashMap<>();
        image.topics()
                .topicsByName()
                .keySet()
                .forEach(name -> namesByCollisionKey.put(TopicNames.collisionKey(name), name));
        ClusterImage brokers = image.cluster();
        int placementCursor = image.topics().totalPartitions();

        List<MetadataRecord> records = new ArrayList<>();
        List<CreateTopicResult> results = new ArrayList<>(requests.size());
        for (CreateTopicRequest request : requests) {
            String name = request.name();
            Optional<CreateTopicResult> nameError = duplicateNames.contains(name)
                    ? Optional.of(CreateTopicResult.failure(name, Errors.INVALID_REQUEST, "Duplicate topic name."))
                    : validateName(image, name, namesByCollisionKey);
            if (nameError.isPresent()) {
                results.add(nameError.get());
                continue;
            }
            Placement placement;
            try {
                placement = place(request, brokers, placementCursor);
                TopicConfigDef.validate(request.configs());
            } catch (TopicRequestException e) {
                results.add(CreateTopicResult.failure(name, e.error, e.getMessage()));
                continue;
            } catch (InvalidConfigurationException e) {
                results.add(CreateTopicResult.failure(name, Errors.INVALID_CONFIG, e.getMessage()));
                continue;
            }
            placementCursor += placement.replicas().size();
            namesByCollisionKey.put(TopicNames.collisionKey(name), name);
            Map<String, String> configs = Collections.unmodifiableMap(new TreeMap<>(request.configs()));
            Uuid topicId = Uuid.ZERO_UUID;
            if (!validateOnly) {
                topicId = newTopicId(image);
                records.addAll(topicRecords(name, topicId, placement, configs, brokers));
            }
            results.add(new CreateTopicResult(
                    name,
                    Errors.NONE,
                    null,
                    topicId,
                    placement.replicas().size(),
                    (short) placement.replicas().get(0).size(),
                    configs));
        }
        return ControllerResult.of(records, results);
    }

    private static Optional<CreateTopicResult> validateName(
            MetadataImage image, String name, Map<String, String> namesByCollisionKey) {
        Optional<String> illegal = TopicNames.validate(name);
        if (illegal.isPresent()) {
            return Optional.of(CreateTopicResult.failure(name, Errors.INVALID_TOPIC_EXCEPTION, illegal.get()));
        }
        String existing = namesByCollisionKey.get(TopicNames.collisionKey(name));
        if (existing == null) {
            return Optional.empty();
        }
        if (existing.equals(name)) {
            return Optional.of(CreateTopicResult.failure(
                    name, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + name + "' already exists."));
        }
        return Optional.of(CreateTopicResult.failure(
                name,
                Errors.INVALID_TOPIC_EXCEPTION,
                "Topic '" + name + "' collides with existing topic: " + existing));
    }

    /** Replicas of each partition, index = partition id. */
    private record Placement(List<List<Integer>> replicas) {}

    private Placement place(CreateTopicRequest request, ClusterImage brokers, int placementCursor)
            throws TopicRequestException {
        if (!request.assignments().isEmpty()) {
            if (request.replicationFactor() != -1) {
                throw new TopicRequestException(
                        Errors.INVALID_REQUEST,
                        "A manual partition assignment was specified, but replication factor was not set to -1.");
            }
            if (request.numPartitions() != -1) {
                throw new TopicRequestException(
                        Errors.INVALID_REQUEST,
                        "A manual partition assignment was specified, but numPartitions was not set to -1.");
            }
            return new Placement(validateManualAssignment(request.assignments(), brokers));
        }
        if (request.replicationFactor() == 0 || request.replicationFactor() < -1) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "Replication factor must be larger than 0, or -1 to use the default value.");
        }
        if (request.numPartitions() == 0 || request.numPartitions() < -1) {
            throw new TopicRequestException(
                    Errors.INVALID_PARTITIONS, "Number of partitions was set to an invalid non-positive value.");
        }
        int numPartitions = request.numPartitions() == -1 ? config.defaultNumPartitions() : request.numPartitions();
        int replicationFactor =
                request.replicationFactor() == -1 ? config.defaultReplicationFactor() : request.replicationFactor();
        return new Placement(placeAutomatically(brokers, numPartitions, replicationFactor, placementCursor));
    }

    /** Placement on the usable brokers (unfenced, not shutting down), with their racks. */
    private List<List<Integer>> placeAutomatically(
            ClusterImage cluster, int numPartitions, int replicationFactor, int placementCursor)
            throws TopicRequestException {
        List<ReplicaPlacer.Broker> usable = cluster.activeBrokerIds().stream()
                .map(id -> new ReplicaPlacer.Broker(id, cluster.broker(id).rack()))
                .toList();
        if (usable.isEmpty()) {
            throw new TopicRequestException(Errors.INVALID_REPLICATION_FACTOR, "All brokers are currently fenced.");
        }
        if (replicationFactor > usable.size()) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICATION_FACTOR,
                    "Unable to replicate the partition "
                            + replicationFactor + " time(s): The target replication factor of " + replicationFactor
                            + " cannot be reached because only " + usable.size() + " broker(s) are registered.");
        }
        return placer.place(usable, numPartitions, replicationFactor, placementCursor);
    }

    private static List<List<Integer>> validateManualAssignment(
            Map<Integer, List<Integer>> assignments, ClusterImage registered) throws TopicRequestException {
        List<List<Integer>> placement = new ArrayList<>(assignments.size());
        for (int partitionId = 0; partitionId < assignments.size(); partitionId++) {
            List<Integer> replicas = assignments.get(partitionId);
            if (replicas == null) {
                throw new TopicRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "partitions should be a consecutive 0-based integer sequence");
            }
            validateReplicas(partitionId, replicas, registered);
            if (!placement.isEmpty() && placement.get(0).size() != replicas.size()) {
                throw new TopicRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes the partition " + partitionId + " with "
                                + replicas.size() + " replica(s), but previous partitions had "
                                + placement.get(0).size() + " replica(s).");
            }
            placement.add(List.copyOf(replicas));
        }
        return placement;
    }

    /** The checks every manually assigned replica list must pass. */
    private static void validateReplicas(int partitionId, List<Integer> replicas, ClusterImage registered)
            throws TopicRequestException {
        if (replicas == null || replicas.isEmpty()) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes an empty replica list.");
        }
        if (new HashSet<>(replicas).size() != replicas.size()) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "The manual partition assignment includes the partition " + partitionId
                            + " with duplicate replicas " + replicas + ".");
        }
        for (Integer broker : replicas) {
            if (broker == null || registered.broker(broker) == null) {
                throw new TopicRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes broker " + broker
                                + ", but no such broker is registered.");
            }
        }
        if (replicas.stream().noneMatch(registered::isActive)) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "All brokers specified in the manual partition assignment for partition " + partitionId
                            + " are fenced or in controlled shutdown.");
        }
    }

    /**
     * Adds partitions to existing topics, placing new replicas like new topics' (or as assigned) with
     * the topic's replication factor. One result per request entry, in order; later entries see
     * the placement cursor moved by earlier ones.
     */
    public ControllerResult<List<CreatePartitionsResult>> createPartitions(
            MetadataImage image, List<CreatePartitionsRequest> requests) {
        long newPartitions = 0;
        for (CreatePartitionsRequest request : requests) {
            TopicImage topic = request.name() == null ? null : image.topics().getTopic(request.name());
            if (topic != null) {
                newPartitions += Math.max(0, request.count() - topic.numPartitions());
            }
        }
        if (newPartitions > MAX_PARTITIONS_PER_REQUEST) {
            throw new PolicyViolationException(TOO_MANY_PARTITIONS);
        }
        Set<String> duplicateNames =
                duplicates(requests.stream().map(CreatePartitionsRequest::name).toList());
        ClusterImage brokers = image.cluster();
        int placementCursor = image.topics().totalPartitions();
        List<MetadataRecord> records = new ArrayList<>();
        List<CreatePartitionsResult> results = new ArrayList<>(requests.size());
        for (CreatePartitionsRequest request : requests) {
            String name = request.name();
            if (duplicateNames.contains(name)) {
                results.add(new CreatePartitionsResult(name, Errors.INVALID_REQUEST, "Duplicate topic name."));
                continue;
            }
            TopicImage topic = name == null ? null : image.topics().getTopic(name);
            if (topic == null) {
                results.add(new CreatePartitionsResult(
                        name, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
                continue;
            }
            List<List<Integer>> placement;
            try {
                placement = placeNewPartitions(topic, request, brokers, placementCursor);
            } catch (TopicRequestException e) {
                results.add(new CreatePartitionsResult(name, e.error, e.getMessage()));
                continue;
            }
            placementCursor += placement.size();
            for (int i = 0; i < placement.size(); i++) {
                records.add(newPartition(topic.id(), topic.numPartitions() + i, placement.get(i), brokers));
            }
            results.add(new CreatePartitionsResult(name, Errors.NONE, null));
        }
        return ControllerResult.of(records, results);
    }

    private List<List<Integer>> placeNewPartitions(
            TopicImage topic, CreatePartitionsRequest request, ClusterImage brokers, int placementCursor)
            throws TopicRequestException {
        int current = topic.numPartitions();
        if (request.count() < current) {
            throw new TopicRequestException(
                    Errors.INVALID_PARTITIONS,
                    "Topic currently has " + current + " partitions, which is higher than the requested "
                            + request.count() + ".");
        }
        if (request.count() == current) {
            throw new TopicRequestException(
                    Errors.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
        }
        int additional = request.count() - current;
        int replicationFactor = topic.partition(0).replicas().length;
        if (request.assignments() == null) {
            return placeAutomatically(brokers, additional, replicationFactor, placementCursor);
        }
        if (request.assignments().size() != additional) {
            throw new TopicRequestException(
                    Errors.INVALID_REPLICA_ASSIGNMENT,
                    "Attempted to add " + additional
                            + " additional partition(s), but only "
                            + request.assignments().size()
                            + " assignment(s) were specified.");
        }
        for (int i = 0; i < additional; i++) {
            List<Integer> replicas = request.assignments().get(i);
            validateReplicas(current + i, replicas, brokers);
            if (replicas.size() != replicationFactor) {
                throw new TopicRequestException(
                        Errors.INVALID_REPLICA_ASSIGNMENT,
                        "The manual partition assignment includes a partition with " + replicas.size()
                                + " replica(s), but this is not consistent with previous partitions, which have "
                                + replicationFactor + " replica(s).");
            }
        }
        return request.assignments();
    }

    private static List<MetadataRecord> topicRecords(
            String name, Uuid topicId, Placement placement, Map<String, String> configs, ClusterImage brokers) {
        List<MetadataRecord> records = new ArrayList<>(1 + placement.replicas().size() + configs.size());
        records.add(new TopicRecord(name, topicId));
        for (int partitionId = 0; partitionId < placement.replicas().size(); partitionId++) {
            records.add(newPartition(topicId, partitionId, placement.replicas().get(partitionId), brokers));
        }
        configs.forEach((configName, value) ->
                records.add(new ConfigRecord(ConfigResourceType.TOPIC, name, configName, value)));
        return records;
    }

    /**
     * A new partition's ISR is its usable replicas (all of them when placed automatically; a manual
     * assignment may name fenced brokers), led by the first of them.
     */
    private static PartitionRecord newPartition(
            Uuid topicId, int partitionId, List<Integer> replicas, ClusterImage brokers) {
        int[] assigned = replicas.stream().mapToInt(Integer::intValue).toArray();
        int[] isr = replicas.stream()
                .filter(brokers::isActive)
                .mapToInt(Integer::intValue)
                .toArray();
        return new PartitionRecord(topicId, partitionId, assigned, isr, isr[0], 0, 0);
    }

    private Uuid newTopicId(MetadataImage image) {
        while (true) {
            Uuid id = topicIdGenerator.get();
            if (!id.equals(Uuid.ZERO_UUID) && image.topics().getTopic(id) == null) {
                return id;
            }
        }
    }

    /**
     * Deletes topics named by name or by id. Returns one result per entry (names first, then ids);
     * a topic named twice (once by name, once by id) is removed once.
     */
    public ControllerResult<List<DeleteTopicResult>> deleteTopics(
            MetadataImage image, List<String> names, List<Uuid> ids) {
        Set<String> duplicateNames = duplicates(names);
        Set<Uuid> duplicateIds = duplicates(ids);
        Set<Uuid> toRemove = new LinkedHashSet<>();
        List<DeleteTopicResult> results = new ArrayList<>(names.size() + ids.size());
        for (String name : names) {
            TopicImage topic = name == null ? null : image.topics().getTopic(name);
            if (duplicateNames.contains(name)) {
                results.add(
                        new DeleteTopicResult(name, Uuid.ZERO_UUID, Errors.INVALID_REQUEST, "Duplicate topic name."));
            } else if (topic == null) {
                results.add(new DeleteTopicResult(
                        name,
                        Uuid.ZERO_UUID,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION.message()));
            } else {
                results.add(new DeleteTopicResult(name, topic.id(), Errors.NONE, null));
                toRemove.add(topic.id());
            }
        }
        for (Uuid id : ids) {
            TopicImage topic = id == null ? null : image.topics().getTopic(id);
            if (id == null || id.equals(Uuid.ZERO_UUID)) {
                results.add(new DeleteTopicResult(null, id, Errors.INVALID_REQUEST, "Invalid topic id."));
            } else if (duplicateIds.contains(id)) {
                results.add(new DeleteTopicResult(null, id, Errors.INVALID_REQUEST, "Duplicate topic id."));
            } else if (topic == null) {
                results.add(
                        new DeleteTopicResult(null, id, Errors.UNKNOWN_TOPIC_ID, Errors.UNKNOWN_TOPIC_ID.message()));
            } else {
                results.add(new DeleteTopicResult(topic.name(), id, Errors.NONE, null));
                toRemove.add(id);
            }
        }
        List<MetadataRecord> records =
                toRemove.stream().<MetadataRecord>map(RemoveTopicRecord::new).toList();
        return ControllerResult.of(records, results);
    }

    private static <T> Set<T> duplicates(List<T> values) {
        return values.stream()
                .filter(Objects::nonNull)
                .collect(Collectors.groupingBy(Function.identity(), HashMap::new, Collectors.counting()))
                .entrySet()
                .stream()
                .filter(entry -> entry.getValue() > 1)
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet());
    }

    /** A validation failure of one topic, carried to its result. */
    private static final class TopicRequestException extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Errors error;

        TopicRequestException(Errors error, String message) {
            super(message, null, false, false);
            this.error = error;
        }
    }
}
