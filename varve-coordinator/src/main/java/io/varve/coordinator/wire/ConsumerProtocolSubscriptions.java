package io.varve.coordinator.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Reads a classic consumer's JoinGroup metadata (the "consumer" protocol type). */
public final class ConsumerProtocolSubscriptions {
    private ConsumerProtocolSubscriptions() {}

    /**
     * A classic consumer's subscription: its topics, the partitions it owns (version 1+; empty before, and for
     * an eager consumer, which gives everything up before it joins) and its rack (version 3+, else null).
     */
    public record Subscription(Set<String> topics, Map<String, Set<Integer>> ownedPartitions, String rackId) {}

    /** The subscribed topics, or null when the bytes are not a consumer subscription this version can read. */
    public static Set<String> topics(byte[] metadata) {
        Subscription s = decode(metadata);
        return s == null ? null : s.topics();
    }

    /** The whole subscription, or null when the bytes are not a consumer subscription this version can read. */
    public static Subscription decode(byte[] metadata) {
        if (metadata == null || metadata.length < 2) {
            return null;
        }
        try {
            ByteBuffer buf = ByteBuffer.wrap(metadata);
            short version = buf.getShort();
            if (version < ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION) {
                return null;
            }
            // Newer versions only add fields at the end: read them with the highest version we know.
            short readVersion = (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
            ConsumerProtocolSubscription s = new ConsumerProtocolSubscription(new ByteBufferAccessor(buf), readVersion);
            Map<String, Set<Integer>> owned = new TreeMap<>();
            for (ConsumerProtocolSubscription.TopicPartition tp : s.ownedPartitions()) {
                owned.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).addAll(tp.partitions());
            }
            return new Subscription(new TreeSet<>(s.topics()), owned, s.rackId());
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** A subscription to {@code topics} as a classic consumer sends it (version 0, no user data). */
    public static byte[] encode(Collection<String> topics) {
        short version = 0;
        ConsumerProtocolSubscription s = new ConsumerProtocolSubscription().setTopics(new ArrayList<>(topics));
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(2 + s.size(cache, version));
        buf.putShort(version);
        s.write(new ByteBufferAccessor(buf), cache, version);
        return buf.array();
    }
}
