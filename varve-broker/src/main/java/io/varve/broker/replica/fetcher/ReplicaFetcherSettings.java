package io.varve.broker.replica.fetcher;

/**
 * Kafka's replica fetcher keys.
 *
 * @param numFetchers        {@code num.replica.fetchers}: fetcher threads per leader broker
 * @param fetchMaxBytes      {@code replica.fetch.max.bytes}: per partition in one fetch
 * @param responseMaxBytes   {@code replica.fetch.response.max.bytes}: per fetch response
 * @param waitMaxMs          {@code replica.fetch.wait.max.ms}: how long the leader may hold a fetch without data
 * @param minBytes           {@code replica.fetch.min.bytes}: data the leader waits for before answering
 * @param backoffMs          {@code replica.fetch.backoff.ms}: pause after an error before fetching a partition again
 * @param requestTimeoutMs   {@code replica.socket.timeout.ms}: a fetch answered later than its wait plus this failed
 */
public record ReplicaFetcherSettings(
        int numFetchers,
        int fetchMaxBytes,
        int responseMaxBytes,
        int waitMaxMs,
        int minBytes,
        long backoffMs,
        long requestTimeoutMs) {

    /** Kafka's defaults. */
    public static ReplicaFetcherSettings defaults() {
        return new ReplicaFetcherSettings(1, 1_048_576, 10_485_760, 500, 1, 1_000, 30_000);
    }
}
