package io.varve.tiered.metadata;

import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * Binary form of one {@link RemoteLogMetadataEvent} (the body of a store record; framing and CRC are the store's).
 * Big-endian. Layout:
 * <pre>
 *   type:int8 (0 = SegmentAdded, 1 = SegmentStateChanged)
 *   topicId:uuid(2 x int64) topicLength:int16 topic:utf8 partition:int32 segmentId:uuid(2 x int64)
 *   SegmentAdded:        startOffset:int64 endOffset:int64 maxTimestampMs:int64 sizeBytes:int32
 *                        eventTimestampMs:int64 epochCount:int32 (epoch:int32 startOffset:int64)*
 *   SegmentStateChanged: state:int8 eventTimestampMs:int64
 * </pre>
 */
public final class RemoteLogMetadataCodec {
    private static final byte TYPE_SEGMENT_ADDED = 0;
    private static final byte TYPE_STATE_CHANGED = 1;
    /** Far above any real event (thousands of leader epochs); guards against allocating from a corrupt count. */
    static final int MAX_EVENT_BYTES = 1 << 20;

    private RemoteLogMetadataCodec() {}

    public static byte[] encode(RemoteLogMetadataEvent event) {
        RemoteSegmentId id = event.segmentId();
        byte[] topic = id.topicIdPartition().topic().getBytes(StandardCharsets.UTF_8);
        int idBytes = 16 + 2 + topic.length + 4 + 16;
        ByteBuffer buf;
        if (event instanceof SegmentAdded added) {
            RemoteSegmentMetadata m = added.metadata();
            buf = ByteBuffer.allocate(1
                    + idBytes
                    + 8 * 3
                    + 4
                    + 8
                    + 4
                    + 12 * m.segmentLeaderEpochs().size());
            buf.put(TYPE_SEGMENT_ADDED);
            putId(buf, id, topic);
            buf.putLong(m.startOffset())
                    .putLong(m.endOffset())
                    .putLong(m.maxTimestampMs())
                    .putInt(m.segmentSizeBytes())
                    .putLong(m.eventTimestampMs());
            buf.putInt(m.segmentLeaderEpochs().size());
            for (Map.Entry<Integer, Long> e : m.segmentLeaderEpochs().entrySet()) {
                buf.putInt(e.getKey()).putLong(e.getValue());
            }
        } else {
            SegmentStateChanged change = (SegmentStateChanged) event;
            buf = ByteBuffer.allocate(1 + idBytes + 1 + 8);
            buf.put(TYPE_STATE_CHANGED);
            putId(buf, id, topic);
            buf.put(change.newState().id()).putLong(change.eventTimestampMs());
        }
        assert !buf.hasRemaining() : "event size miscounted";
        if (buf.capacity() > MAX_EVENT_BYTES) {
            throw new IllegalArgumentException("remote log metadata event too large: " + buf.capacity() + " bytes");
        }
        return buf.array();
    }

    /** @throws IllegalArgumentException if the bytes are not a well-formed event */
    public static RemoteLogMetadataEvent decode(ByteBuffer buf) {
        try {
            byte type = buf.get();
            RemoteSegmentId id = getId(buf);
            RemoteLogMetadataEvent event;
            if (type == TYPE_SEGMENT_ADDED) {
                long startOffset = buf.getLong();
                long endOffset = buf.getLong();
                long maxTimestampMs = buf.getLong();
                int sizeBytes = buf.getInt();
                long eventTimestampMs = buf.getLong();
                int epochCount = buf.getInt();
                if (epochCount < 0 || epochCount > buf.remaining() / 12) {
                    throw new IllegalArgumentException("bad leader epoch count " + epochCount);
                }
                TreeMap<Integer, Long> epochs = new TreeMap<>();
                for (int i = 0; i < epochCount; i++) {
                    epochs.put(buf.getInt(), buf.getLong());
                }
                event = new SegmentAdded(RemoteSegmentMetadata.copyStarted(
                        id, startOffset, endOffset, maxTimestampMs, epochs, sizeBytes, eventTimestampMs));
            } else if (type == TYPE_STATE_CHANGED) {
                event = new SegmentStateChanged(id, RemoteSegmentState.forId(buf.get()), buf.getLong());
            } else {
                throw new IllegalArgumentException("unknown remote log metadata event type " + type);
            }
            if (buf.hasRemaining()) {
                throw new IllegalArgumentException(buf.remaining() + " trailing bytes after " + event);
            }
            return event;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated remote log metadata event", e);
        }
    }

    private static void putId(ByteBuffer buf, RemoteSegmentId id, byte[] topic) {
        Uuid topicId = id.topicIdPartition().topicId();
        buf.putLong(topicId.getMostSignificantBits()).putLong(topicId.getLeastSignificantBits());
        buf.putShort((short) topic.length).put(topic);
        buf.putInt(id.topicIdPartition().partition());
        buf.putLong(id.id().getMostSignificantBits()).putLong(id.id().getLeastSignificantBits());
    }

    private static RemoteSegmentId getId(ByteBuffer buf) {
        Uuid topicId = new Uuid(buf.getLong(), buf.getLong());
        int topicLength = buf.getShort();
        if (topicLength <= 0 || topicLength > buf.remaining()) {
            throw new IllegalArgumentException("bad topic name length " + topicLength);
        }
        byte[] topic = new byte[topicLength];
        buf.get(topic);
        int partition = buf.getInt();
        Uuid segmentId = new Uuid(buf.getLong(), buf.getLong());
        return new RemoteSegmentId(
                new TopicIdPartition(topicId, new String(topic, StandardCharsets.UTF_8), partition), segmentId);
    }
}
