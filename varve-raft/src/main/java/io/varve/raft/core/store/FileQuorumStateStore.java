package io.varve.raft.core.store;

import io.varve.raft.core.runtime.ElectionRecord;
import io.varve.raft.core.runtime.QuorumStateStore;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link ElectionRecord} in a text file named {@value #FILE_NAME} (Kafka keeps the same facts in a
 * file of that name):
 *
 * <pre>
 *   # Varve Raft election record; replaced atomically, do not edit
 *   version=1
 *   epoch=7
 *   votedId=1
 *   leaderId=1
 * </pre>
 *
 * <p>A write goes to {@code quorum-state.tmp}, is fsynced, renamed over the file and the directory is
 * fsynced, so a crash leaves the old record or the new one. A vote is therefore durable before the answer
 * that grants it is sent. A file that cannot be parsed fails the open: a replica that forgot its vote
 * could vote twice in one epoch.
 */
public final class FileQuorumStateStore implements QuorumStateStore {
    public static final String FILE_NAME = "quorum-state";
    private static final int VERSION = 1;

    private final KeyValueFile file;
    private ElectionRecord cached;

    public FileQuorumStateStore(Path dir) {
        StoreDirs.create(dir);
        this.file = new KeyValueFile(
                dir.resolve(FILE_NAME), "Varve Raft election record; replaced atomically, do not edit", VERSION);
        this.cached = file.read().map(this::decode).orElse(null);
    }

    @Override
    public Optional<ElectionRecord> read() {
        return Optional.ofNullable(cached);
    }

    @Override
    public void write(ElectionRecord record) {
        Map<String, Long> fields = new LinkedHashMap<>();
        fields.put("epoch", (long) record.epoch());
        fields.put("votedId", (long) record.votedId());
        fields.put("leaderId", (long) record.leaderId());
        file.write(fields);
        cached = record;
    }

    private ElectionRecord decode(Map<String, Long> fields) {
        return new ElectionRecord(
                Math.toIntExact(file.require(fields, "epoch")),
                Math.toIntExact(file.require(fields, "votedId")),
                Math.toIntExact(file.require(fields, "leaderId")));
    }
}
