package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.record.StreamsGroupValue.CopartitionGroup;
import io.varve.coordinator.group.record.StreamsGroupValue.Subtopology;
import io.varve.coordinator.group.record.StreamsGroupValue.TopicInfo;
import io.varve.coordinator.group.record.StreamsGroupValue.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.errors.StreamsInvalidTopologyException;

/**
 * Resolves a topology against the cluster's topics, as Kafka's coordinator does before it assigns tasks: source
 * regexes become topics; repartition topics without a partition count take it from the subtopologies writing to
 * them (the largest), copartitioned repartition topics take their group's count; a subtopology has as many tasks
 * as its largest input; its changelogs have one partition per task. Missing source topics, missing internal
 * topics (to be created) and wrong partition counts are reported as statuses, and no task is assigned until
 * they are gone.
 */
public final class TopologyResolver {
    private TopologyResolver() {}

    /** Checks what the member sent, before it becomes the group's topology: STREAMS_INVALID_TOPOLOGY otherwise. */
    public static void validate(Topology topology) {
        Set<String> ids = new HashSet<>();
        for (Subtopology s : topology.subtopologies()) {
            if (s.id() == null || s.id().isEmpty() || !ids.add(s.id())) {
                throw new StreamsInvalidTopologyException("Subtopology ids must be non-empty and unique.");
            }
            if (s.sourceTopics().isEmpty()
                    && s.sourceTopicRegex().isEmpty()
                    && s.repartitionSourceTopics().isEmpty()) {
                throw new StreamsInvalidTopologyException("Subtopology " + s.id() + " has no source topics.");
            }
            for (String regex : s.sourceTopicRegex()) {
                try {
                    Pattern.compile(regex);
                } catch (PatternSyntaxException e) {
                    throw new StreamsInvalidTopologyException(
                            "Subtopology " + s.id() + " has an invalid source topic regex " + regex + ".");
                }
            }
            for (CopartitionGroup g : s.copartitionGroups()) {
                checkIndexes(s, g.sourceTopics(), s.sourceTopics().size());
                checkIndexes(s, g.sourceTopicRegex(), s.sourceTopicRegex().size());
                checkIndexes(
                        s, g.repartitionSources(), s.repartitionSourceTopics().size());
            }
        }
    }

    private static void checkIndexes(Subtopology s, List<Short> indexes, int size) {
        for (short i : indexes) {
            if (i < 0 || i >= size) {
                throw new StreamsInvalidTopologyException(
                        "Subtopology " + s.id() + " has a copartition group index " + i + " out of range.");
            }
        }
    }

    public static ConfiguredTopology resolve(Topology topology, TopicsSnapshot topics) {
        if (topology == null) {
            return ConfiguredTopology.NONE;
        }
        List<StreamsApi.Status> statuses = new ArrayList<>();
        Map<String, List<String>> sources = new TreeMap<>();
        Set<String> missingSources = new TreeSet<>();
        Map<String, Integer> repartitionCounts = new HashMap<>();
        for (Subtopology s : topology.subtopologies()) {
            List<String> resolved = new ArrayList<>();
            for (String name : s.sourceTopics()) {
                if (topics.byName(name) == null) {
                    missingSources.add(name);
                }
                resolved.add(name);
            }
            for (String regex : s.sourceTopicRegex()) {
                Pattern p = Pattern.compile(regex);
                List<String> matched = new ArrayList<>();
                for (TopicsSnapshot.Topic t : topics.all()) {
                    if (!t.internal() && p.matcher(t.name()).matches()) {
                        matched.add(t.name());
                    }
                }
                if (matched.isEmpty()) {
                    missingSources.add(regex);
                }
                resolved.addAll(new TreeSet<>(matched));
            }
            for (TopicInfo r : s.repartitionSourceTopics()) {
                resolved.add(r.name());
                if (r.partitions() > 0) {
                    repartitionCounts.put(r.name(), r.partitions());
                }
            }
            sources.put(s.id(), List.copyOf(resolved));
        }
        if (!missingSources.isEmpty()) {
            statuses.add(new StreamsApi.Status(
                    StreamsApi.MISSING_SOURCE_TOPICS,
                    "Source topics " + String.join(", ", missingSources) + " are missing."));
            return new ConfiguredTopology(Map.of(), sources, statuses, List.of(), hash(topology, topics, sources));
        }
        Set<String> unresolved = deriveRepartitionCounts(topology, topics, repartitionCounts);
        List<String> badlyPartitioned = new ArrayList<>(applyCopartitioning(topology, topics, repartitionCounts));
        if (!unresolved.isEmpty()) {
            badlyPartitioned.add("cannot derive the partitions of " + String.join(", ", unresolved));
        }
        Map<String, Integer> numTasks = new TreeMap<>();
        for (Subtopology s : topology.subtopologies()) {
            numTasks.put(s.id(), maxPartitions(s, topics, repartitionCounts));
        }
        List<TopicInfo> toCreate = new ArrayList<>();
        Set<String> missingInternal = new TreeSet<>();
        Map<String, TopicInfo> internal = new LinkedHashMap<>();
        for (Subtopology s : topology.subtopologies()) {
            for (TopicInfo r : s.repartitionSourceTopics()) {
                internal.putIfAbsent(r.name(), withPartitions(r, repartitionCounts.getOrDefault(r.name(), 0)));
            }
            for (TopicInfo c : s.stateChangelogTopics()) {
                internal.putIfAbsent(c.name(), withPartitions(c, numTasks.get(s.id())));
            }
        }
        for (TopicInfo t : internal.values()) {
            TopicsSnapshot.Topic existing = topics.byName(t.name());
            if (existing == null) {
                missingInternal.add(t.name());
                if (t.partitions() > 0) {
                    toCreate.add(t);
                }
            } else if (t.partitions() > 0 && existing.numPartitions() != t.partitions()) {
                badlyPartitioned.add(
                        t.name() + " has " + existing.numPartitions() + " partitions, expected " + t.partitions());
            }
        }
        if (!badlyPartitioned.isEmpty()) {
            statuses.add(new StreamsApi.Status(
                    StreamsApi.INCORRECTLY_PARTITIONED_TOPICS,
                    "Topics are incorrectly partitioned: " + String.join("; ", badlyPartitioned) + "."));
        }
        if (!missingInternal.isEmpty()) {
            statuses.add(new StreamsApi.Status(
                    StreamsApi.MISSING_INTERNAL_TOPICS,
                    "Internal topics are missing: " + String.join(", ", missingInternal) + "."));
        }
        boolean ready = statuses.isEmpty() && numTasks.values().stream().allMatch(n -> n > 0);
        return new ConfiguredTopology(
                ready ? numTasks : Map.of(), sources, statuses, toCreate, hash(topology, topics, sources));
    }

    private static TopicInfo withPartitions(TopicInfo t, int partitions) {
        return new TopicInfo(t.name(), partitions, t.replicationFactor(), t.configs());
    }

    /** Fixed point: a repartition topic without a count takes the largest input count of its writers. */
    private static Set<String> deriveRepartitionCounts(
            Topology topology, TopicsSnapshot topics, Map<String, Integer> counts) {
        Set<String> unresolved = new TreeSet<>();
        for (Subtopology s : topology.subtopologies()) {
            for (TopicInfo r : s.repartitionSourceTopics()) {
                if (!counts.containsKey(r.name())) {
                    unresolved.add(r.name());
                }
            }
        }
        // Each round resolves at least one topic or stops: bounded by the number of topics.
        boolean progress = true;
        while (!unresolved.isEmpty() && progress) {
            progress = false;
            for (String name : new ArrayList<>(unresolved)) {
                int best = 0;
                boolean complete = true;
                for (Subtopology writer : topology.subtopologies()) {
                    if (!writer.repartitionSinkTopics().contains(name)) {
                        continue;
                    }
                    for (TopicInfo input : writer.repartitionSourceTopics()) {
                        if (!counts.containsKey(input.name())) {
                            complete = false;
                        }
                    }
                    best = Math.max(best, maxPartitions(writer, topics, counts));
                }
                if (complete && best > 0) {
                    counts.put(name, best);
                    unresolved.remove(name);
                    progress = true;
                }
            }
        }
        return unresolved;
    }

    /** Returns the copartition groups whose source topics disagree; repartition topics follow their group. */
    private static List<String> applyCopartitioning(
            Topology topology, TopicsSnapshot topics, Map<String, Integer> repartitionCounts) {
        List<String> problems = new ArrayList<>();
        for (Subtopology s : topology.subtopologies()) {
            for (CopartitionGroup g : s.copartitionGroups()) {
                Set<Integer> sourceCounts = new TreeSet<>();
                for (short i : g.sourceTopics()) {
                    TopicsSnapshot.Topic t = topics.byName(s.sourceTopics().get(i));
                    if (t != null) {
                        sourceCounts.add(t.numPartitions());
                    }
                }
                if (sourceCounts.size() > 1) {
                    problems.add("source topics of a copartition group of subtopology " + s.id()
                            + " have different partition counts " + sourceCounts);
                    continue;
                }
                int target =
                        sourceCounts.isEmpty() ? 0 : sourceCounts.iterator().next();
                if (target == 0) {
                    for (short i : g.repartitionSources()) {
                        target = Math.max(
                                target,
                                repartitionCounts.getOrDefault(
                                        s.repartitionSourceTopics().get(i).name(), 0));
                    }
                }
                for (short i : g.repartitionSources()) {
                    TopicInfo r = s.repartitionSourceTopics().get(i);
                    if (r.partitions() == 0 && target > 0) {
                        repartitionCounts.put(r.name(), target);
                    }
                }
            }
        }
        return problems;
    }

    private static int maxPartitions(Subtopology s, TopicsSnapshot topics, Map<String, Integer> repartitionCounts) {
        int max = 0;
        for (String name : s.sourceTopics()) {
            TopicsSnapshot.Topic t = topics.byName(name);
            max = Math.max(max, t == null ? 0 : t.numPartitions());
        }
        for (String regex : s.sourceTopicRegex()) {
            Pattern p = Pattern.compile(regex);
            for (TopicsSnapshot.Topic t : topics.all()) {
                if (!t.internal() && p.matcher(t.name()).matches()) {
                    max = Math.max(max, t.numPartitions());
                }
            }
        }
        for (TopicInfo r : s.repartitionSourceTopics()) {
            max = Math.max(max, repartitionCounts.getOrDefault(r.name(), 0));
        }
        return max;
    }

    /** Stable across restarts (it is persisted): names, ids and partition counts of every topic involved. */
    private static long hash(Topology topology, TopicsSnapshot topics, Map<String, List<String>> sources) {
        Set<String> names = new TreeSet<>();
        sources.values().forEach(names::addAll);
        for (Subtopology s : topology.subtopologies()) {
            s.stateChangelogTopics().forEach(t -> names.add(t.name()));
        }
        long h = 1125899906842597L;
        for (String name : names) {
            TopicsSnapshot.Topic t = topics.byName(name);
            h = 31 * h + name.hashCode();
            if (t != null) {
                h = 31 * h + t.id().getMostSignificantBits();
                h = 31 * h + t.id().getLeastSignificantBits();
                h = 31 * h + t.numPartitions();
            } else {
                h = 31 * h - 1;
            }
        }
        return h;
    }
}
