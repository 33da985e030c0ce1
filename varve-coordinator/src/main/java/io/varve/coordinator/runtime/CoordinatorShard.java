package io.varve.coordinator.runtime;

/**
 * The state machine of one partition of a coordinator's internal topic, as the runtime drives it: events are the
 * coordinator's own methods, called by the runtime on the shard's thread; after each the runtime {@link #drain()}s
 * what it produced. Never called from two threads at once.
 */
public interface CoordinatorShard {
    /** The records to write and the answers to release after them, since the last drain. */
    Outbox.Output drain();

    /** Runs the timers due at the shard clock's current time. */
    void tick();

    /** When {@link #tick()} next has something to do, or {@link Long#MAX_VALUE}. */
    long nextDeadlineMs();
}
