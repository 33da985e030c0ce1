package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.storage.AppendOrigin;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica moved to another log dir under the replica manager: its {@link Partition} stays and switches to the new
 * log at the swap, so appends made through it before, during and after the move all land in the log that serves.
 */
class ReplicaManagerLogDirMoveTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path dir;

    private LogManager logs;
    private FetchPurgatory fetches;
    private ReplicaManager replicas;

    @BeforeEach
    void start() {
        logs = new LogManager(List.of(dir.resolve("a"), dir.resolve("b")), LogConfig.defaults());
        fetches = new FetchPurgatory(Runnable::run);
        replicas = new ReplicaManager(
                1,
                logs,
                fetches,
                (snapshot, overrides) -> LogConfig.defaults(),
                (snapshot, overrides) -> 1,
                new AtomicLong(1_000)::get);
        PartitionInfo info = new PartitionInfo(0, 1, 0, new int[] {1}, new int[] {1}, 0);
        TopicInfo topic = new TopicInfo("t", TOPIC_ID, Map.of(0, info), Map.of());
        replicas.applyMetadata(
                new MetadataSnapshot(1, Map.of("t", topic), Map.of(TOPIC_ID, topic), List.of(), Map.of(), Map.of()));
    }

    @AfterEach
    void stop() {
        replicas.close();
        fetches.close();
        logs.close();
    }

    @Test
    void thePartitionSwitchesToTheMovedLogAndAppendsDuringTheMoveAreKept() throws Exception {
        Partition p = replicas.partition(TP).orElseThrow();
        PartitionLog before = p.log();
        for (int i = 0; i < 200; i++) {
            replicas.append(p, batch("before-" + i), AppendOrigin.CLIENT, (short) 1);
        }
        Path destination = before.dir().getParent().getFileName().toString().equals("a")
                ? dir.resolve("b").toAbsolutePath()
                : dir.resolve("a").toAbsolutePath();

        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong appended = new AtomicLong(200);
        Thread writer = new Thread(() -> {
            while (!stop.get()) {
                try {
                    replicas.append(p, batch("during-" + appended.get()), AppendOrigin.CLIENT, (short) 1);
                    appended.incrementAndGet();
                } catch (RuntimeException e) {
                    // a write that took the old log just before the swap is refused, and a client retries it
                }
            }
        });
        writer.start();
        try {
            logs.moveReplica(TP, destination);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> logs.getLog(TP).orElseThrow().dir().getParent().equals(destination));
        } finally {
            stop.set(true);
            writer.join();
        }
        PartitionLog after = logs.getLog(TP).orElseThrow();
        assertThat(replicas.partition(TP)).containsSame(p);
        assertThat(p.log()).isSameAs(after).isNotSameAs(before);
        assertThat(after.logEndOffset()).isEqualTo(appended.get());
        replicas.append(p, batch("after"), AppendOrigin.CLIENT, (short) 1);
        assertThat(after.logEndOffset()).isEqualTo(appended.get() + 1);
        assertThat(p.highWatermark()).isEqualTo(appended.get() + 1);
    }

    private static ByteBuffer batch(String value) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }
}
