package io.varve.http.view;

import java.util.concurrent.CompletableFuture;

/**
 * The changes the console can ask of the node. The broker implements them with the same controller calls its Kafka
 * API handlers make, so a change from the console is a change a client could have made. Each future completes with
 * null on success or the Kafka error's message.
 */
public interface ConsoleActions {
    /** {@code partitions} -1 for the broker's default. */
    CompletableFuture<String> createTopic(String name, int partitions);

    CompletableFuture<String> deleteTopic(String name);

    /** No actions: the console is read-only. */
    ConsoleActions NONE = new ConsoleActions() {
        @Override
        public CompletableFuture<String> createTopic(String name, int partitions) {
            return CompletableFuture.completedFuture("This console is read-only.");
        }

        @Override
        public CompletableFuture<String> deleteTopic(String name) {
            return CompletableFuture.completedFuture("This console is read-only.");
        }
    };
}
