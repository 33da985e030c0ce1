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
 * key      := version:int16 groupIdLength:int16 groupId:utf8 topicId:uuid(2 x int64) partition:int32
 * value v0 := version:int16 startOffset:int64 batchCount:int32
 *             batchCount x (firstOffset:int64 lastOffset:int64 state:int8 deliveryCount:int16)
 * value v1 := version:int16 stateEpoch:int32 leaderEpoch:int32 startOffset:int64 batchCount:int32 batches (as v0)
 * </pre>
 *
 * state is {@link RecordState#code()}; ACQUIRED is never written (its lock dies with the broker: it is AVAILABLE).
 * Version 1 carries the share coordinator's epochs (KIP-932's state epoch, and the leader epoch of the last
 * share-partition leader that read or wrote the state); a version 0 value (written before the share coordinator)
 * reads as state epoch 0 and leader epoch -1. This is Varve's own layout, not Kafka's ShareSnapshot/ShareUpdate
 * records.
 */
public final class ShareStateRecords {
    private static final short KEY_VERSION = 0;
    private static final short VALUE_V0 = 0;
    private static final short VALUE_V1 = 1;
    private static final int BATCH_BYTES = 8 + 8 + 1 + 2;

    /** A share-partition's durable state with the coordinator's epochs. */
    public record Stored(int stateEpoch, int leaderEpoch, SharePartition.Snapshot snapshot) {}

    /** A decoded key. */
    public record Key(String groupId, Uuid topicId, int partition) {}

    private ShareStateRecords() {}

    public static byte[] key(String groupId, Uuid topicId, int partition) {
        byte[] group = groupId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(2 + 2 + group.length + 16 + 4);
        b.putShort(KEY_VERSION).putShort((short) group.length).put(group);
        b.putLong(topicId.getMostSignificantBits()).putLong(topicId.getLeastSignificantBits());
        b.putInt(partition);
        return b.array();
    }

    public static Key decodeKey(byte[] key) {
        ByteBuffer b = ByteBuffer.wrap(key);
        short version = b.getShort();
        if (version != KEY_VERSION) {
            throw unknown(version, "key");
        }
        byte[] group = new byte[b.getShort()];
        b.get(group);
        Uuid topicId = new Uuid(b.getLong(), b.getLong());
        return new Key(new String(group, StandardCharsets.UTF_8), topicId, b.getInt());
    }

    /** A value at state epoch 0 and no leader epoch (tests, and what a version 0 value reads as). */
    public static byte[] value(SharePartition.Snapshot s) {
        return value(new Stored(0, -1, s));
    }

    public static byte[] value(Stored stored) {
        SharePartition.Snapshot s = stored.snapshot();
        ByteBuffer b = ByteBuffer.allocate(2 + 4 + 4 + 8 + 4 + s.batches().size() * BATCH_BYTES);
        b.putShort(VALUE_V1).putInt(stored.stateEpoch()).putInt(stored.leaderEpoch());
        b.putLong(s.startOffset()).putInt(s.batches().size());
        for (SharePartition.StateBatch batch : s.batches()) {
            RecordState state = batch.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : batch.state();
            b.putLong(batch.firstOffset()).putLong(batch.lastOffset()).put(state.code());
            b.putShort((short) batch.deliveryCount());
        }
        return b.array();
    }

    public static SharePartition.Snapshot decodeValue(byte[] value) {
        return decodeStored(value).snapshot();
    }

    public static Stored decodeStored(byte[] value) {
        ByteBuffer b = ByteBuffer.wrap(value);
        short version = b.getShort();
        int stateEpoch = 0;
        int leaderEpoch = -1;
        if (version == VALUE_V1) {
            stateEpoch = b.getInt();
            leaderEpoch = b.getInt();
        } else if (version != VALUE_V0) {
            throw unknown(version, "value");
        }
        long start = b.getLong();
        int count = b.getInt();
        if (count < 0 || count > b.remaining() / BATCH_BYTES) {
            throw new IllegalArgumentException(
                    "share state value with " + count + " batches in " + value.length + " bytes");
        }
        List<SharePartition.StateBatch> batches = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            batches.add(
                    new SharePartition.StateBatch(b.getLong(), b.getLong(), RecordState.ofCode(b.get()), b.getShort()));
        }
        return new Stored(stateEpoch, leaderEpoch, new SharePartition.Snapshot(start, batches));
    }

    private static IllegalArgumentException unknown(short version, String part) {
        return new IllegalArgumentException("share state " + part + " version " + version + " is not known");
    }
}
