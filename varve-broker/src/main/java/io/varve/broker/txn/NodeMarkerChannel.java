package io.varve.broker.txn;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.network.client.NodeClient;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * WriteTxnMarkers (v1) to another broker over {@code listenerName} (the inter-broker listener), at the address the
 * metadata registers for it. A broker that is not registered and unfenced, or has no such listener, fails the send
 * with BROKER_NOT_AVAILABLE (retriable: the marker waits for a leader that can be reached).
 */
public final class NodeMarkerChannel implements TxnMarkerSender.RemoteMarkers, AutoCloseable {
    static final short VERSION = 1;
    /** A marker is answered once committed at the leader, which may wait for its followers. */
    static final long REQUEST_TIMEOUT_MS = 30_000;

    private final MetadataCache cache;
    private final String listenerName;
    private final NodeClient client;

    public NodeMarkerChannel(MetadataCache cache, String listenerName, NodeClient client) {
        this.cache = cache;
        this.listenerName = listenerName;
        this.client = client;
    }

    @Override
    public CompletableFuture<WriteTxnMarkersResponseData> send(int nodeId, WriteTxnMarkersRequestData request) {
        Optional<InetSocketAddress> address = address(cache.snapshot(), nodeId);
        if (address.isEmpty()) {
            return CompletableFuture.failedFuture(new BrokerNotAvailableException(
                    "Broker " + nodeId + " has no " + listenerName + " listener registered now."));
        }
        return client.send(address.get(), ApiKeys.WRITE_TXN_MARKERS, VERSION, request, REQUEST_TIMEOUT_MS)
                .thenApply(response -> (WriteTxnMarkersResponseData) response.body());
    }

    private Optional<InetSocketAddress> address(MetadataSnapshot snapshot, int nodeId) {
        return snapshot.brokers().stream()
                .filter(b -> b.nodeId() == nodeId)
                .findFirst()
                .flatMap(b -> b.endpoint(listenerName))
                .map(e -> new InetSocketAddress(e.host(), e.port()));
    }

    @Override
    public void close() {
        client.close();
    }
}
