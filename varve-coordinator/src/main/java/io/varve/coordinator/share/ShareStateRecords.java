package io.varve.coordinator.share;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * The records of Varve's {@code __share_group_state} topic (compacted): one per share-partition, the latest wins, a
 * tombstone deletes. Big-endian, each part versioned by a leading int16 (0 today):
 *
 * <pre>
 * key   := version:int16 groupIdLength:int16 groupId:utf8 topicId:uuid(2 x int64) partition:int32
 * value := version:int16 startOffset:int64 batchCount:int32
 *          batchCount x (firstOffset:int64 lastOffset:int64 state:int8 deliveryCount:int16)
 * </pre>
 *
 * state is {@link RecordState#code()}; ACQUIRED is never written (its lock dies with the broker: it is AVAILABLE).
 * This is Varve's own layout, not Kafka's ShareSnapshot/ShareUpdate records.
 */
public final class ShareStateRecords {
    private static final short VERSION = 0;

    /** A decoded key. */
    public record Key(String groupId, Uuid topicId, int partition) {}

    private ShareStateRecords() {}

    public static byte[] key(String groupId, Uuid topicId, int partition) {
        byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + group.length + 16 + 4);
        b.putShort(VERSION).putShort((short) group.length).put(group);
        b.putLong(topicId.getMostSignificantBits()).putLong(topicId.getLeastSignificantBits());
        b.putInt(partition);
        return b.array();
    }

    public static Key decodeKey(byte[] key) {
        ByteBuffer b = ByteBuffer.wrap(key);
        requireVersion(b.getShort(), "key");
        byte[] group = new byte[b.getShort()];
        b.get(group);
        Uuid topicId = new Uuid(b.getLong(), b.getLong());
        return new Key(new String(group, StandardCharsets.UTF_8), topicId, b.getInt());
    }

    public static byte[] value(SharePartition.Snapshot s) {
        ByteBuffer b = ByteBuffer.allocate(2 + 8 + 4 + s.batches().size() * (8 + 8 + 1 + 2));
        b.putShort(VERSION).putLong(s.startOffset()).putInt(s.batches().size());
        for (SharePartition.StateBatch batch : s.batches()) {
            RecordState state = batch.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : batch.state();
            b.putLong(batch.firstOffset()).putLong(batch.lastOffset()).put(state.code());
            b.putShort((short) batch.deliveryCount());
        }
        return b.array();
    }

    public static SharePartition.Snapshot decodeValue(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        requireVersion(b.getShort(), "value");
        long start = b.getLong();
        int count = b.getInt();
        if (count < 0 || count > b.remaining() / (8 + 8 + 1 + 2)) {
            throw new IllegalArgumentException(
                    "share state value with " + count + " batches in " + value.length + " bytes");
        }
        List<SharePartition.StateBatch> batches = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            batches.add(
                    new SharePartition.StateBatch(b.getLong(), b.getLong(), RecordState.ofCode(b.get()), b.getShort()));
        }
        return new SharePartition.Snapshot(start, batches);
    }

    private static void requireVersion(short version, String part) {
        if (version != VERSION) {
            throw new IllegalArgumentException("share state " + part + " version " + version + " is not known");
        }
    }
}
