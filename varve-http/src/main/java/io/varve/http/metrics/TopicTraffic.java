package io.varve.http.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Bytes and messages in and out per topic (Kafka's {@code BrokerTopicMetrics}). The produce and fetch paths look a
 * topic's counters up once per partition of a request (a hash lookup, no allocation once the topic is known) and add
 * to {@link LongAdder}s: no lock and nothing per record.
 */
public final class TopicTraffic {
    private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();
    /** Moves before each read of the topics held here, so that {@link #retain} spares topics first seen after it. */
    private final AtomicLong generation = new AtomicLong();

    /** The counters of one topic. */
    public static final class Topic {
        final String name;
        /** The generation when the topic was first seen. */
        final long generation;

        final LongAdder bytesIn = new LongAdder();
        final LongAdder messagesIn = new LongAdder();
        final LongAdder bytesOut = new LongAdder();
        final LongAdder produceRequests = new LongAdder();
        final LongAdder fetchRequests = new LongAdder();
        final LongAdder failedProduceRequests = new LongAdder();
        final LongAdder remoteFetchBytes = new LongAdder();
        final LongAdder recordCheckNanos = new LongAdder();

        Topic(String name, long generation) {
            this.name = name;
            this.generation = generation;
        }

        /** One partition's accepted append of {@code messages} records in {@code bytes} bytes of batches. */
        public void produced(int bytes, long messages) {
            bytesIn.add(bytes);
            messagesIn.add(messages);
            produceRequests.increment();
        }

        /**
         * Time one partition's records spent in the produce path's record check (broker-side schema validation),
         * measured around the check: what the feature costs, read directly rather than from an A/B benchmark.
         */
        public void recordsChecked(long nanos) {
            recordCheckNanos.add(nanos);
        }

        public void produceFailed() {
            failedProduceRequests.increment();
        }

        /** One partition's records in a fetch response; {@code remote} when they came from tiered storage. */
        public void fetched(long bytes, boolean remote) {
            bytesOut.add(bytes);
            fetchRequests.increment();
            if (remote) {
                remoteFetchBytes.add(bytes);
            }
        }
    }

    public Topic topic(String name) {
        Topic t = topics.get(name);
        return t != null ? t : topics.computeIfAbsent(name, n -> new Topic(n, generation.get()));
    }

    /** Call before reading which topics are held here; pass what it returns to {@link #retain}. */
    long nextGeneration() {
        return generation.incrementAndGet();
    }

    /**
     * Forgets the topics not in {@code existing} (deleted ones), so their series leave the scrape — but only those
     * first seen before {@code readAt} ({@link #nextGeneration()} before {@code existing} was read): a topic created
     * since may take records before the next read shows it, and its counts must not be lost.
     */
    void retain(Set<String> existing, long readAt) {
        topics.values().removeIf(t -> t.generation < readAt && !existing.contains(t.name));
    }

    /** Bytes in and out so far of each topic ({@code [in, out]}), for the console's throughput charts. */
    public java.util.Map<String, long[]> byteTotals() {
        java.util.Map<String, long[]> out = new java.util.TreeMap<>();
        topics.forEach((name, t) -> out.put(name, new long[] {t.bytesIn.sum(), t.bytesOut.sum()}));
        return out;
    }

    Iterable<Topic> topics() {
        return topics.values();
    }
}
