package io.varve.http.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Kafka's {@code kafka.network:type=RequestMetrics} per API: requests per version, and histograms of the total time
 * and its parts (queue, local, remote) and of request and response sizes. An API's metrics are
 * created once, when the broker registers its handler; recording indexes an array by the API key.
 */
public final class RequestMetrics {
    /** Larger than every Kafka API key and version today; keys beyond are recorded under no metrics. */
    static final int MAX_API_KEYS = 256;

    static final int MAX_VERSIONS = 32;

    private final AtomicReferenceArray<Api> byKey = new AtomicReferenceArray<>(MAX_API_KEYS);
    /** Time the request threads spent running handlers, for the idle ratio (its thread count set by the collector). */
    final BusyTime handlers = new BusyTime(0);

    /** The metrics of one API: named as Kafka's request label, for example {@code Produce}, {@code FetchConsumer}. */
    public static final class Api {
        final String name;
        final LongAdder[] requestsByVersion = new LongAdder[MAX_VERSIONS];
        final Histogram totalTimeMs = new Histogram(Histogram.LATENCY_MS);
        final Histogram requestQueueTimeMs = new Histogram(Histogram.LATENCY_MS);
        final Histogram localTimeMs = new Histogram(Histogram.LATENCY_MS);
        final Histogram remoteTimeMs = new Histogram(Histogram.LATENCY_MS);
        final Histogram responseSendTimeMs = new Histogram(Histogram.LATENCY_MS);
        final Histogram requestBytes = new Histogram(Histogram.SIZE_BYTES);
        final Histogram responseBytes = new Histogram(Histogram.SIZE_BYTES);
        final LongAdder errors = new LongAdder();

        Api(String name) {
            this.name = name;
            for (int v = 0; v < MAX_VERSIONS; v++) {
                requestsByVersion[v] = new LongAdder();
            }
        }

        /**
         * One request: its size, how long it queued before a request thread took it, how long its handler ran until
         * its answer was ready (local; remote when it waited in a purgatory), all in nanoseconds.
         */
        public void record(int version, int requestSizeBytes, long queueNanos, long localNanos, long remoteNanos) {
            if (version >= 0 && version < MAX_VERSIONS) {
                requestsByVersion[version].increment();
            }
            requestBytes.observe(requestSizeBytes);
            requestQueueTimeMs.observeNanosAsMs(queueNanos);
            localTimeMs.observeNanosAsMs(localNanos);
            remoteTimeMs.observeNanosAsMs(remoteNanos);
        }

        /** The response is ready to send: its size. */
        public void responded(int responseSizeBytes) {
            responseBytes.observe(responseSizeBytes);
        }

        /**
         * The response was written to the socket (or the request needed none): the time since it was ready to send
         * ({@code ResponseSendTimeMs}) and since its request was received ({@code TotalTimeMs}, send included as in
         * Kafka).
         */
        public void sent(long sendNanos, long totalNanos) {
            responseSendTimeMs.observeNanosAsMs(sendNanos);
            totalTimeMs.observeNanosAsMs(totalNanos);
        }

        /** A request whose handler failed (the client got an error answer for the whole request). */
        public void failed() {
            errors.increment();
        }

        public long requests() {
            long n = 0;
            for (LongAdder a : requestsByVersion) {
                n += a.sum();
            }
            return n;
        }
    }

    /** Registers (or returns) the metrics of API {@code key} under the request label {@code name}. */
    public Api register(int key, String name) {
        Api existing = byKey.get(key);
        if (existing != null) {
            return existing;
        }
        byKey.compareAndSet(key, null, new Api(name));
        return byKey.get(key);
    }

    /** The metrics of API {@code key}, or null when it was never registered. */
    public Api api(int key) {
        return key >= 0 && key < MAX_API_KEYS ? byKey.get(key) : null;
    }

    /** Time a request thread spent running a handler. */
    public void handlerBusy(long nanos) {
        handlers.busy(nanos);
    }

    /**
     * The APIs that had a request, sorted by name. An API's series appear with its first request: ~70 APIs with seven
     * histograms each made every scrape of an idle broker some 600 KiB, most of it zeros.
     */
    List<Api> active() {
        List<Api> out = new ArrayList<>();
        for (Api a : apis()) {
            if (a.requests() > 0) {
                out.add(a);
            }
        }
        out.sort(java.util.Comparator.comparing(a -> a.name));
        return out;
    }

    List<Api> apis() {
        List<Api> out = new ArrayList<>();
        for (int i = 0; i < MAX_API_KEYS; i++) {
            Api a = byKey.get(i);
            if (a != null) {
                out.add(a);
            }
        }
        return out;
    }
}
