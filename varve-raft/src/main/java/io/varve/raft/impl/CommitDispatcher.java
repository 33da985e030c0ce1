package io.varve.raft.impl;

import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import io.varve.raft.log.LogBatch;
import io.varve.raft.log.RaftLog;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Hands committed batches to the listeners, in offset order, each offset exactly once. Calls are
 * grouped up to a soft record limit but never split a batch.
 */
final class CommitDispatcher {

    private final List<RaftListener> listeners;
    private final int maxRecordsPerDelivery;
    private long nextOffset;

    CommitDispatcher(List<RaftListener> listeners, int maxRecordsPerDelivery) {
        this.listeners = List.copyOf(listeners);
        this.maxRecordsPerDelivery = maxRecordsPerDelivery;
    }

    /** The first offset not yet delivered. */
    long nextOffset() {
        return nextOffset;
    }

    /** Delivers every batch of the log below {@code highWatermark} that was not delivered yet. */
    void catchUp(RaftLog log, long highWatermark) throws IOException {
        while (nextOffset < highWatermark) {
            List<LogBatch> batches = log.read(nextOffset, highWatermark, maxRecordsPerDelivery);
            if (batches.isEmpty()) {
                throw new IllegalStateException(
                        "log has no batch at offset " + nextOffset + " below the high watermark " + highWatermark);
            }
            deliver(batches);
        }
    }

    /** Delivers batches that directly follow the last delivered one. */
    void deliver(List<LogBatch> batches) {
        List<RaftRecord> records = new ArrayList<>();
        for (LogBatch batch : batches) {
            if (batch.baseOffset() != nextOffset + records.size()) {
                throw new IllegalStateException(
                        "batch " + batch + " does not follow offset " + (nextOffset + records.size()));
            }
            long offset = batch.baseOffset();
            for (byte[] payload : batch.payloads()) {
                records.add(new RaftRecord(offset++, batch.epoch(), payload));
            }
            if (records.size() >= maxRecordsPerDelivery) {
                publish(records);
                records = new ArrayList<>();
            }
        }
        if (!records.isEmpty()) {
            publish(records);
        }
    }

    private void publish(List<RaftRecord> records) {
        List<RaftRecord> view = List.copyOf(records);
        for (RaftListener listener : listeners) {
            listener.handleCommit(view);
        }
        nextOffset += records.size();
    }

    void leaderChanged(int leaderId, int epoch) {
        for (RaftListener listener : listeners) {
            listener.handleLeaderChange(leaderId, epoch);
        }
    }
}
