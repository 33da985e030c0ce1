package io.varve.raft;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Test listener: remembers every committed record, each call, and every leader change. */
final class RecordingListener implements RaftListener {

    final List<RaftRecord> records = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> callSizes = Collections.synchronizedList(new ArrayList<>());
    final List<int[]> leaderChanges = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void handleCommit(List<RaftRecord> committed) {
        callSizes.add(committed.size());
        records.addAll(committed);
    }

    @Override
    public void handleLeaderChange(int leaderId, int epoch) {
        leaderChanges.add(new int[] {leaderId, epoch});
    }

    List<String> payloadsAsStrings() {
        synchronized (records) {
            return records.stream()
                    .map(r -> new String(r.payload(), java.nio.charset.StandardCharsets.UTF_8))
                    .toList();
        }
    }

    List<Long> offsets() {
        synchronized (records) {
            return records.stream().map(RaftRecord::offset).toList();
        }
    }
}
