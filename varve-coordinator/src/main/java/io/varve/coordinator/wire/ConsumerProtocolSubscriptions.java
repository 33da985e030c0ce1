package io.varve.coordinator.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Reads the topics out of a classic consumer's JoinGroup metadata (the "consumer" protocol type). */
public final class ConsumerProtocolSubscriptions {
    private ConsumerProtocolSubscriptions() {}

    /** The subscribed topics, or null when the bytes are not a consumer subscription this version can read. */
    public static Set<String> topics(byte[] metadata) {
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
            return new TreeSet<>(s.topics());
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
