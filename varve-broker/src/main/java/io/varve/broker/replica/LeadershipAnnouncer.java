package io.varve.broker.replica;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells {@link LeadershipListener}s the difference between the partitions this broker was announced to lead and
 * those it leads now. Called only on the metadata thread (under the replica manager's monitor), so it needs no lock
 * of its own besides the listener list, which may grow from any thread.
 */
final class LeadershipAnnouncer {
    private static final Logger log = LoggerFactory.getLogger(LeadershipAnnouncer.class);

    private final List<LeadershipListener> listeners = new CopyOnWriteArrayList<>();
    /** Partition -> the leader epoch last announced by onBecomingLeader. */
    private final Map<TopicPartition, Integer> announced = new HashMap<>();

    /** Adds a listener and tells it at once of every partition already announced. */
    synchronized void add(LeadershipListener listener) {
        listeners.add(listener);
        announced.forEach((tp, epoch) -> tell(listener, tp, epoch, true));
    }

    /** Resigns every announced partition not in {@code leading} or led with another epoch there. */
    synchronized void resignAllBut(Map<TopicPartition, Integer> leading) {
        var it = announced.entrySet().iterator();
        while (it.hasNext()) {
            var e = it.next();
            Integer now = leading.get(e.getKey());
            if (now == null) {
                it.remove();
                listeners.forEach(l -> tell(l, e.getKey(), e.getValue(), false));
            }
        }
    }

    /** Announces every partition of {@code leading} not announced yet, or announced with an older epoch. */
    synchronized void announce(Map<TopicPartition, Integer> leading) {
        leading.forEach((tp, epoch) -> {
            Integer before = announced.put(tp, epoch);
            if (before == null || before.intValue() != epoch) {
                listeners.forEach(l -> tell(l, tp, epoch, true));
            }
        });
    }

    private static void tell(LeadershipListener listener, TopicPartition tp, int epoch, boolean leader) {
        try {
            if (leader) {
                listener.onBecomingLeader(tp, epoch);
            } else {
                listener.onResigning(tp, epoch);
            }
        } catch (RuntimeException e) {
            log.error(
                    "A leadership listener failed on {} of {} at epoch {}",
                    leader ? "election" : "resignation",
                    tp,
                    epoch,
                    e);
        }
    }

    /** For tests and the coordinator runtime: the partitions last announced. */
    synchronized Map<TopicPartition, Integer> announced() {
        return Map.copyOf(new HashMap<>(announced));
    }
}
