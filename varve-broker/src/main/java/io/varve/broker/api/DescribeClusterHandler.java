package io.varve.broker.api;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot.BrokerInfo;
import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeCluster: cluster id, controller and brokers as seen on the listener the client used. */
public final class DescribeClusterHandler implements ApiHandler {
    /** KIP-919 endpoint types. */
    private static final byte ENDPOINT_BROKER = 1;

    private final MetadataCache cache;

    public DescribeClusterHandler(MetadataCache cache) {
        this.cache = cache;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeClusterRequestData data = request.body();
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setErrorCode(Errors.NONE.code())
                .setClusterId(cache.clusterId())
                .setControllerId(cache.controllerId())
                .setEndpointType(data.endpointType());
        if (request.apiVersion() >= 1 && data.endpointType() != ENDPOINT_BROKER) {
            // This node is broker and controller at once; controllers are asked for on a controller listener.
            response.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage(
                            "The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER");
            return CompletableFuture.completedFuture(response);
        }
        for (BrokerInfo broker : cache.snapshot().brokers()) {
            broker.endpoint(request.listenerName()).ifPresent(ep -> response.brokers()
                    .add(new DescribeClusterBroker()
                            .setBrokerId(broker.nodeId())
                            .setHost(ep.host())
                            .setPort(ep.port())
                            .setRack(broker.rack())
                            .setIsFenced(false)));
        }
        return CompletableFuture.completedFuture(response);
    }
}
