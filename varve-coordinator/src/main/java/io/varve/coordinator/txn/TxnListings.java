package io.varve.coordinator.txn;

import io.varve.coordinator.txn.TxnApi.ListFilter;
import io.varve.coordinator.txn.TxnApi.ListResponse;
import io.varve.coordinator.txn.TxnApi.ListedTxn;
import io.varve.coordinator.txn.TxnApi.TxnDescription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/** DescribeTransactions and ListTransactions over a shard's transactional ids: pure reads of its metadata. */
final class TxnListings {
    private TxnListings() {}

    static List<TxnDescription> describe(Map<String, TxnMetadata> txns, List<String> transactionalIds) {
        List<TxnDescription> out = new ArrayList<>();
        for (String id : transactionalIds) {
            TxnMetadata m = txns.get(id);
            if (m == null) {
                out.add(new TxnDescription(
                        id, Errors.TRANSACTIONAL_ID_NOT_FOUND, null, 0, -1, -1, (short) -1, Set.of()));
            } else {
                out.add(new TxnDescription(
                        id,
                        Errors.NONE,
                        m.state(),
                        m.timeoutMs(),
                        m.txnStartMs(),
                        m.producerId(),
                        m.epoch(),
                        m.partitions()));
            }
        }
        return out;
    }

    /** Transactions matching every filter; state names are Kafka's (case-insensitive), unknown ones reported. */
    static ListResponse list(Collection<TxnMetadata> txns, ListFilter filter, long nowMs) {
        Set<TxnState> states = new HashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String name : filter.states()) {
            TxnState s = TxnState.fromName(name.toLowerCase(Locale.ROOT));
            if (s == null) {
                unknown.add(name);
            } else {
                states.add(s);
            }
        }
        List<ListedTxn> out = new ArrayList<>();
        if (!filter.states().isEmpty() && states.isEmpty()) {
            return new ListResponse(out, unknown);
        }
        for (TxnMetadata m : txns) {
            boolean stateMatches = states.isEmpty() || states.contains(m.state());
            boolean idMatches =
                    filter.producerIds().isEmpty() || filter.producerIds().contains(m.producerId());
            boolean durationMatches = filter.minDurationMs() < 0
                    || (m.txnStartMs() >= 0 && nowMs - m.txnStartMs() > filter.minDurationMs());
            if (stateMatches && idMatches && durationMatches) {
                out.add(new ListedTxn(m.transactionalId(), m.producerId(), m.state()));
            }
        }
        return new ListResponse(out, unknown);
    }
}
