package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeCluster on the controller listener (KIP-919), what Admin with {@code bootstrap.controllers} uses for its
 * metadata: the controllers and their controller-listener addresses, and as controller the quorum's leader (or, while
 * none is known, the first controller, so the client has one to ask). Asked for brokers here, it answers
 * MISMATCHED_ENDPOINT_TYPE, as Kafka's controller does.
 */
public final class ControllerDescribeClusterHandler implements ApiHandler {
    /** KIP-919 endpoint types. */
    private static final byte ENDPOINT_CONTROLLER = 2;

    private final String clusterId;
    private final IntSupplier leaderId;
    private final Supplier<Map<Integer, InetSocketAddress>> controllers;

    public ControllerDescribeClusterHandler(
            String clusterId, IntSupplier leaderId, Supplier<Map<Integer, InetSocketAddress>> controllers) {
        this.clusterId = clusterId;
        this.leaderId = leaderId;
        this.controllers = controllers;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeClusterRequestData data = request.body();
        Map<Integer, InetSocketAddress> nodes = controllers.get();
        int leader = leaderId.getAsInt();
        int controllerId =
                leader >= 0 ? leader : nodes.keySet().stream().findFirst().orElse(-1);
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setErrorCode(Errors.NONE.code())
                .setClusterId(clusterId)
                .setControllerId(controllerId)
                .setEndpointType(data.endpointType());
        if (request.apiVersion() < 1 || data.endpointType() != ENDPOINT_CONTROLLER) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.MISMATCHED_ENDPOINT_TYPE.code())
                    .setErrorMessage("The request was sent to an endpoint of type CONTROLLER, but we wanted an"
                            + " endpoint of type BROKER"));
        }
        nodes.forEach((id, address) -> response.brokers()
                .add(new DescribeClusterBroker()
                        .setBrokerId(id)
                        .setHost(address.getHostString())
                        .setPort(address.getPort())
                        .setRack(null)
                        .setIsFenced(false)));
        return CompletableFuture.completedFuture(response);
    }
}
