/**
 * One runtime for every coordinator ({@link io.varve.coordinator.runtime.CoordinatorRuntime}): a shard per partition
 * of the coordinator's internal topic, loaded when this broker becomes its leader and dropped when it resigns, events
 * run one at a time on the shard's thread, timers, and an {@link io.varve.coordinator.runtime.Outbox} whose answers
 * leave only once their records are committed. Threads, the log and the clock are seams the broker plugs in
 * ({@link io.varve.coordinator.runtime.CoordinatorScheduler}, {@link io.varve.coordinator.runtime.CoordinatorWriter},
 * {@link io.varve.coordinator.runtime.CoordinatorLoader}); nothing here opens a thread, a socket or a file.
 */
package io.varve.coordinator.runtime;
