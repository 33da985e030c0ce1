package io.varve.broker.observe;

import io.varve.broker.protocol.FetchedRecords;
import io.varve.http.view.BrowseQuery;
import io.varve.http.view.BrowsedPartition;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The message browser's reads: ListOffsets to find where to start (an offset, a time, or {@code limit} before the
 * end), then Fetch as a read_committed consumer without a fetch session, never waiting (max wait 0), each round at
 * most {@link #MAX_BYTES} and {@link #MAX_ROUNDS} rounds: a read never takes longer than a few fetches, whatever the
 * partition holds.
 */
final class MessageBrowsing {
    /** The last Fetch version that names topics (13 and later name topic ids). */
    private static final short FETCH_BY_NAME = 12;

    static final int MAX_BYTES = 4 << 20;
    static final int MAX_PARTITION_BYTES = 1 << 20;
    static final int MAX_ROUNDS = 8;

    private final ConsoleRequests requests;

    MessageBrowsing(ConsoleRequests requests) {
        this.requests = requests;
    }

    CompletableFuture<List<BrowsedPartition>> browse(BrowseQuery q) {
        return requests.partitions(q.topic()).thenCompose(all -> {
            List<Integer> partitions;
            if (q.partition() < 0) {
                partitions = all;
            } else if (all.contains(q.partition())) {
                partitions = List.of(q.partition());
            } else {
                throw new ConsoleFailure(404, "Topic " + q.topic() + " has no partition " + q.partition() + ".");
            }
            Long time = q.from() == BrowseQuery.From.TIMESTAMP ? q.value() : null;
            return requests.bounds(q.topic(), partitions, time).thenCompose(b -> {
                Read[] reads = new Read[partitions.size()];
                for (int i = 0; i < reads.length; i++) {
                    long low = b.earliest()[i];
                    long high = b.latest()[i];
                    long start =
                            switch (q.from()) {
                                case OFFSET -> Math.max(low, Math.min(high, q.value()));
                                case END -> Math.max(low, high - q.limit());
                                case TIMESTAMP -> b.atTime()[i] < 0 ? high : b.atTime()[i];
                            };
                    reads[i] = new Read(partitions.get(i), start, high);
                }
                return rounds(q, reads, 0);
            });
        });
    }

    /** One partition's read so far. */
    private static final class Read {
        final int partition;
        final long start;
        final long end;
        long next;
        final List<Message> messages = new ArrayList<>();
        String error;

        Read(int partition, long start, long end) {
            this.partition = partition;
            this.start = start;
            this.end = end;
            this.next = start;
        }

        boolean done(int limit) {
            return error != null || messages.size() >= limit || next >= end;
        }
    }

    private CompletableFuture<List<BrowsedPartition>> rounds(BrowseQuery q, Read[] reads, int round) {
        List<Read> open = new ArrayList<>();
        for (Read r : reads) {
            if (!r.done(q.limit())) {
                open.add(r);
            }
        }
        if (open.isEmpty() || round == MAX_ROUNDS) {
            List<BrowsedPartition> out = new ArrayList<>();
            for (Read r : reads) {
                out.add(new BrowsedPartition(r.partition, r.start, r.next, r.end, List.copyOf(r.messages), r.error));
            }
            return CompletableFuture.completedFuture(out);
        }
        FetchRequestData.FetchTopic topic = new FetchRequestData.FetchTopic().setTopic(q.topic());
        for (Read r : open) {
            topic.partitions()
                    .add(new FetchRequestData.FetchPartition()
                            .setPartition(r.partition)
                            .setCurrentLeaderEpoch(-1)
                            .setFetchOffset(r.next)
                            .setLogStartOffset(-1)
                            .setPartitionMaxBytes(MAX_PARTITION_BYTES));
        }
        FetchRequestData request = new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(0)
                .setMaxBytes(MAX_BYTES)
                .setIsolationLevel(ConsoleRequests.READ_COMMITTED)
                .setSessionId(0)
                .setSessionEpoch(-1);
        request.topics().add(topic);
        return requests.apis
                .<FetchResponseData>call(ApiKeys.FETCH, FETCH_BY_NAME, request, requests.client)
                .thenCompose(response -> {
                    Errors top = Errors.forCode(response.errorCode());
                    ConsoleRequests.check(top, "Fetch");
                    boolean progress = false;
                    for (FetchResponseData.FetchableTopicResponse t : response.responses()) {
                        for (FetchResponseData.PartitionData p : t.partitions()) {
                            Read r = find(open, p.partitionIndex());
                            if (r == null) {
                                continue;
                            }
                            Errors error = Errors.forCode(p.errorCode());
                            if (error != Errors.NONE) {
                                if (error.name().endsWith("_AUTHORIZATION_FAILED")) {
                                    throw ConsoleRequests.failure(error, null, "Reading " + q.topic());
                                }
                                r.error = error.name() + ": " + error.message();
                                continue;
                            }
                            List<Message> got = FetchedRecords.decode(
                                    r.partition,
                                    p.records(),
                                    p.abortedTransactions(),
                                    r.next,
                                    q.limit() - r.messages.size());
                            long before = r.next;
                            for (Message m : got) {
                                if (m.offset() < r.end) {
                                    r.messages.add(m);
                                    r.next = m.offset() + 1;
                                }
                            }
                            if (got.isEmpty()
                                    && p.records() != null
                                    && p.records().sizeInBytes() > 0) {
                                // only control records or an aborted transaction's: step over the batches read
                                r.next = Math.min(r.end, lastOffsetPlusOne(p, r.next));
                            }
                            progress |= r.next > before;
                        }
                    }
                    if (!progress) {
                        return rounds(q, reads, MAX_ROUNDS);
                    }
                    return rounds(q, reads, round + 1);
                });
    }

    private static long lastOffsetPlusOne(FetchResponseData.PartitionData p, long fallback) {
        long last = FetchedRecords.lastOffset(p.records());
        return last < 0 ? fallback : last + 1;
    }

    private static Read find(List<Read> reads, int partition) {
        for (Read r : reads) {
            if (r.partition == partition) {
                return r;
            }
        }
        return null;
    }
}
