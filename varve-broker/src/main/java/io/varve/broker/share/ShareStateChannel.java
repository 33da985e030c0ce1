package io.varve.broker.share;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.network.client.NodeClient;
import io.varve.broker.share.coordinator.ShareStateApis;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How a share-partition leader reaches the share coordinator of a key: this broker's own {@link ShareStateApis}
 * in-process when it coordinates the key, else the coordinator broker over the inter-broker listener (the node client
 * and the client security the other inter-broker calls use). A broker without that listener registered fails the
 * call with BROKER_NOT_AVAILABLE (retriable).
 */
public final class ShareStateChannel implements CoordinatorShareStateStore.Channel {
    /** A coordinator answers once its record is committed, which may wait for its followers. */
    static final long REQUEST_TIMEOUT_MS = 30_000;

    private final int nodeId;
    private final ShareStateApis local;
    private final MetadataCache cache;
    private final String listenerName;
    private final NodeClient client;

    public ShareStateChannel(
            int nodeId, ShareStateApis local, MetadataCache cache, String listenerName, NodeClient client) {
        this.nodeId = nodeId;
        this.local = local;
        this.cache = cache;
        this.listenerName = listenerName;
        this.client = client;
    }

    /** Sends {@code body} as {@code api} (the version each API has in Kafka 4.4 that Varve sends) to {@code node}. */
    @Override
    public CompletableFuture<ApiMessage> call(int node, ApiKeys api, ApiMessage body) {
        if (node == nodeId) {
            return switch (api) {
                case INITIALIZE_SHARE_GROUP_STATE ->
                    local.initialize((InitializeShareGroupStateRequestData) body)
                            .thenApply(m -> m);
                case READ_SHARE_GROUP_STATE ->
                    local.read((ReadShareGroupStateRequestData) body).thenApply(m -> m);
                case WRITE_SHARE_GROUP_STATE ->
                    local.write((WriteShareGroupStateRequestData) body).thenApply(m -> m);
                case DELETE_SHARE_GROUP_STATE ->
                    local.delete((DeleteShareGroupStateRequestData) body).thenApply(m -> m);
                case READ_SHARE_GROUP_STATE_SUMMARY ->
                    local.summary((ReadShareGroupStateSummaryRequestData) body).thenApply(m -> m);
                default -> throw new IllegalArgumentException(api + " is not a share state API");
            };
        }
        Optional<InetSocketAddress> address = cache.snapshot().brokers().stream()
                .filter(b -> b.nodeId() == node)
                .findFirst()
                .flatMap(b -> b.endpoint(listenerName))
                .map(e -> new InetSocketAddress(e.host(), e.port()));
        if (address.isEmpty()) {
            return CompletableFuture.failedFuture(new BrokerNotAvailableException(
                    "Broker " + node + " has no " + listenerName + " listener registered now."));
        }
        // v1 of Write and Summary only adds DeliveryCompleteCount, which the summary answer needs
        short version = api == ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY ? (short) 1 : (short) 0;
        return client.send(address.get(), api, version, body, REQUEST_TIMEOUT_MS)
                .thenApply(response -> response.body());
    }
}
