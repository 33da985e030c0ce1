package io.varve.storage.cleaner;

import io.varve.storage.records.BatchInfo;
import io.varve.storage.segment.AbortedTxn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a cleaning pass knows about transactions while it walks batches in log order (all of them below the
 * last stable offset, so every transaction there is complete): which data batches belong to an aborted
 * transaction (dropped, and never put into the offset map), which markers end a transaction that has no data
 * left (they go once their delete horizon passed), and which aborts must stay in the transaction index
 * (those whose data this pass still met). Fed the aborted transactions of the walked range from the
 * transaction indexes. Pure, single-threaded, one instance per walk.
 */
final class CleanedTransactions {

    /** An aborted transaction the walk is inside of, and whether it met data of it. */
    private static final class OngoingAbort {
        final AbortedTxn txn;
        boolean metData;

        OngoingAbort(AbortedTxn txn) {
            this.txn = txn;
        }
    }

    /** Aborted transactions not reached yet, by first offset. */
    private final ArrayDeque<AbortedTxn> upcomingAborts;

    private final Map<Long, OngoingAbort> ongoingAborts = new HashMap<>();
    /** Producers whose current (committed) transaction the walk met data of. */
    private final Set<Long> committedWithData = new HashSet<>();
    /** Aborts whose markers the walk passed and whose data it met: their index entries stay. */
    private final List<AbortedTxn> abortsToIndex = new ArrayList<>();

    CleanedTransactions(List<AbortedTxn> aborted) {
        List<AbortedTxn> sorted = new ArrayList<>(aborted);
        sorted.sort(Comparator.comparingLong(AbortedTxn::firstOffset));
        this.upcomingAborts = new ArrayDeque<>(sorted);
    }

    /** A data batch: true when it belongs to an aborted transaction and must go. */
    boolean isAborted(BatchInfo batch) {
        reachAbortsUpTo(batch.lastOffset());
        if (!batch.transactional()) {
            return false;
        }
        OngoingAbort abort = ongoingAborts.get(batch.producerId());
        if (abort != null) {
            abort.metData = true;
            return true;
        }
        committedWithData.add(batch.producerId());
        return false;
    }

    /**
     * A control batch: true when it is a marker whose transaction has no data left (none met by this walk,
     * which starts at the log's first batch or at a point before any data of a transaction it will mark).
     */
    boolean endsEmptyTransaction(BatchInfo batch) {
        reachAbortsUpTo(batch.lastOffset());
        if (!batch.hasProducerId()) {
            return false;
        }
        OngoingAbort abort = ongoingAborts.get(batch.producerId());
        if (abort != null && abort.txn.lastOffset() == batch.baseOffset()) {
            ongoingAborts.remove(batch.producerId());
            if (abort.metData) {
                abortsToIndex.add(abort.txn);
                return false;
            }
            return true;
        }
        // a COMMIT, or an ABORT whose index entry went with its data in an earlier pass
        return !committedWithData.remove(batch.producerId());
    }

    /** The aborts to keep in the output's transaction index since the last call, in marker order. */
    List<AbortedTxn> drainAbortsToIndex() {
        List<AbortedTxn> drained = List.copyOf(abortsToIndex);
        abortsToIndex.clear();
        return drained;
    }

    private void reachAbortsUpTo(long offset) {
        while (!upcomingAborts.isEmpty() && upcomingAborts.peekFirst().firstOffset() <= offset) {
            AbortedTxn next = upcomingAborts.pollFirst();
            ongoingAborts.put(next.producerId(), new OngoingAbort(next));
        }
    }
}
