package io.varve.broker.replica.fetcher;

import io.varve.broker.network.client.NodeClient;
import io.varve.broker.replica.Partition;
import io.varve.broker.replica.ReplicaManager;
import io.varve.broker.replica.throttle.ReplicationThrottles;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The replica fetchers of this broker: {@code num.replica.fetchers} per leader broker, a partition always on the
 * same one of them (by its hash), as Kafka's fetcher manager places them. A fetcher without partitions stops.
 */
public final class ReplicaFetcherManager implements ReplicaManager.FollowerFetching, AutoCloseable {
    private record Key(int leaderId, int fetcherId) {}

    private final int localId;
    private final ReplicaFetcherSettings settings;
    private final NodeClient client;
    private final IntFunction<Optional<InetSocketAddress>> addresses;
    private final LongSupplier brokerEpoch;
    private final LongSupplier clockMs;
    /** Guarded by this object's monitor. */
    private final Map<Key, ReplicaFetcher> fetchers = new HashMap<>();

    private final Map<TopicPartition, Key> placement = new HashMap<>();
    private boolean closed;
    private volatile TieredFollowerStart tieredStart = TieredFollowerStart.NONE;
    private volatile ReplicationThrottles throttles;

    /**
     * @param addresses   a broker's address on the inter-broker listener, from the metadata image
     * @param brokerEpoch this broker's epoch, named in its fetches (KIP-903)
     */
    public ReplicaFetcherManager(
            int localId,
            ReplicaFetcherSettings settings,
            int maxFrameBytes,
            IntFunction<Optional<InetSocketAddress>> addresses,
            LongSupplier brokerEpoch,
            LongSupplier clockMs) {
        this(localId, settings, maxFrameBytes, addresses, brokerEpoch, clockMs, null);
    }

    /** As above, fetching with TLS and / or SASL when {@code security} is not null (the inter-broker listener asks). */
    public ReplicaFetcherManager(
            int localId,
            ReplicaFetcherSettings settings,
            int maxFrameBytes,
            IntFunction<Optional<InetSocketAddress>> addresses,
            LongSupplier brokerEpoch,
            LongSupplier clockMs,
            io.varve.broker.network.client.ClientSecurity security) {
        this.localId = localId;
        this.settings = settings;
        this.client = new NodeClient(
                "varve-replica-fetcher-" + localId,
                "varve-replica-fetcher-io",
                maxFrameBytes,
                Math.max(4, settings.numFetchers() * 2),
                settings.requestTimeoutMs(),
                security);
        this.addresses = addresses;
        this.brokerEpoch = brokerEpoch;
        this.clockMs = clockMs;
    }

    @Override
    public synchronized void follow(Partition partition, int leaderId, int leaderEpoch) {
        if (closed) {
            return;
        }
        TopicPartition tp = partition.topicPartition();
        stopFollowing(tp);
        Key key = new Key(leaderId, Math.floorMod(31 * tp.topic().hashCode() + tp.partition(), settings.numFetchers()));
        ReplicaFetcher fetcher = fetchers.computeIfAbsent(key, k -> {
            ReplicaFetcher f = new ReplicaFetcher(
                    localId,
                    k.leaderId(),
                    k.fetcherId(),
                    settings,
                    client,
                    addresses,
                    brokerEpoch,
                    clockMs,
                    () -> tieredStart,
                    () -> throttles);
            f.start();
            return f;
        });
        fetcher.add(partition, leaderEpoch);
        placement.put(tp, key);
    }

    /** The follower side of the replication throttles (follower.replication.throttled.*); none until set. */
    public void useThrottles(ReplicationThrottles throttles) {
        this.throttles = throttles;
    }

    /** How followers build a partition from the remote tier when the leader says OFFSET_MOVED_TO_TIERED_STORAGE. */
    public void useTieredFollowerStart(TieredFollowerStart start) {
        this.tieredStart = start;
    }

    @Override
    public synchronized void stopFollowing(TopicPartition tp) {
        Key key = placement.remove(tp);
        if (key == null) {
            return;
        }
        ReplicaFetcher fetcher = fetchers.get(key);
        if (fetcher != null && fetcher.remove(tp) && fetcher.isEmpty()) {
            fetchers.remove(key);
            fetcher.shutdown();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        fetchers.values().forEach(ReplicaFetcher::shutdown);
        fetchers.clear();
        placement.clear();
        client.close();
    }
}
