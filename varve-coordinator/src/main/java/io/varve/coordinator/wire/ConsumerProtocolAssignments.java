package io.varve.coordinator.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A classic consumer's assignment bytes (SyncGroup), as the coordinator writes them for a classic member of a
 * consumer group and reads them back when a classic group becomes a consumer group.
 */
public final class ConsumerProtocolAssignments {
    /** Version 0 has only the partitions, which is all a coordinator-made assignment carries. */
    private static final short VERSION = 0;

    private ConsumerProtocolAssignments() {}

    /** Partitions by topic name, encoded as a classic consumer reads them. */
    public static byte[] encode(Map<String, Set<Integer>> partitions) {
        ConsumerProtocolAssignment a = new ConsumerProtocolAssignment();
        new TreeMap<>(partitions).forEach((topic, ps) -> {
            if (!ps.isEmpty()) {
                a.assignedPartitions()
                        .add(new ConsumerProtocolAssignment.TopicPartition()
                                .setTopic(topic)
                                .setPartitions(new ArrayList<>(new TreeSet<>(ps))));
            }
        });
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(2 + a.size(cache, VERSION));
        buf.putShort(VERSION);
        a.write(new ByteBufferAccessor(buf), cache, VERSION);
        return buf.array();
    }

    /** Partitions by topic name; empty for empty bytes, null when the bytes are not a consumer assignment. */
    public static Map<String, Set<Integer>> decode(byte[] assignment) {
        if (assignment == null || assignment.length == 0) {
            return Map.of();
        }
        if (assignment.length < 2) {
            return null;
        }
        try {
            ByteBuffer buf = ByteBuffer.wrap(assignment);
            short version = buf.getShort();
            if (version < ConsumerProtocolAssignment.LOWEST_SUPPORTED_VERSION) {
                return null;
            }
            short readVersion = (short) Math.min(version, ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION);
            ConsumerProtocolAssignment a = new ConsumerProtocolAssignment(new ByteBufferAccessor(buf), readVersion);
            Map<String, Set<Integer>> out = new TreeMap<>();
            for (ConsumerProtocolAssignment.TopicPartition tp : a.assignedPartitions()) {
                out.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).addAll(tp.partitions());
            }
            return out;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
