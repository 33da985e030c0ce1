package io.varve.http.view;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the console asks of the node beyond the read-only {@link BrokerView}. The broker implements each with the
 * same internal calls its Kafka API handlers make (the newer ones as in-process Kafka requests through the same
 * handlers and ACL check), so what the console shows and changes is what a client could. {@link #createTopic} and
 * {@link #deleteTopic} complete with null on success or the Kafka error's message; the others fail with a {@link
 * ConsoleFailure} that carries the HTTP status. A node that does not implement one fails it with 501.
 */
public interface ConsoleActions {
    /** {@code partitions} -1 for the broker's default. */
    CompletableFuture<String> createTopic(String name, int partitions);

    CompletableFuture<String> deleteTopic(String name);

    /** Every config of {@code topic} (DescribeConfigs). */
    default CompletableFuture<List<ConfigEntry>> topicConfigs(String topic) {
        return unavailable();
    }

    /** Sets ({@code value} not null) or deletes one config of {@code topic} (IncrementalAlterConfigs). */
    default CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
        return unavailable();
    }

    /**
     * Moves {@code group}'s committed offsets on every partition of {@code topic}; refused (400) unless the group is
     * empty, as {@code kafka-consumer-groups --reset-offsets} refuses.
     */
    default CompletableFuture<List<OffsetReset.Moved>> resetOffsets(String group, String topic, OffsetReset to) {
        return unavailable();
    }

    /** Reads messages as a read_committed consumer would (ListOffsets, then Fetch). */
    default CompletableFuture<List<BrowsedPartition>> browse(BrowseQuery query) {
        return unavailable();
    }

    default CompletableFuture<List<AclEntry>> acls() {
        return unavailable();
    }

    default CompletableFuture<Void> createAcl(AclEntry acl) {
        return unavailable();
    }

    /** Deletes the ACLs matching every field of {@code acl} exactly. */
    default CompletableFuture<Void> deleteAcl(AclEntry acl) {
        return unavailable();
    }

    default CompletableFuture<List<ScramUser>> scramUsers() {
        return unavailable();
    }

    default CompletableFuture<List<ClientQuota>> clientQuotas() {
        return unavailable();
    }

    /**
     * A value of schema {@code schemaId} (the bytes after the wire header) decoded through the in-box schema registry,
     * or null when the registry is off.
     */
    default SchemaDecoded decodeSchemaValue(int schemaId, byte[] value, int offset) {
        return null;
    }

    /**
     * These actions done as {@code principal} ({@code User:alice}) from {@code remoteHost}: the HTTP request's, so
     * that the broker's ACLs decide as they would for that principal's Kafka requests. A node without principals
     * returns itself.
     */
    default ConsoleActions actingAs(String principal, String remoteHost) {
        return this;
    }

    private static <T> CompletableFuture<T> unavailable() {
        return CompletableFuture.failedFuture(new ConsoleFailure(501, "This node does not offer it in its console."));
    }

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
