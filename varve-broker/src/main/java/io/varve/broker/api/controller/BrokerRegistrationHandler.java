package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.VersionRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.auth.SecurityProtocol;

/** BrokerRegistration (controller side): a broker's listeners, rack, incarnation and features, to the controller. */
public final class BrokerRegistrationHandler implements ApiHandler {
    private final QuorumController controller;

    public BrokerRegistrationHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        BrokerRegistrationRequestData data = request.body();
        return controller.registerBroker(toDomain(data)).thenApply(reply -> new BrokerRegistrationResponseData()
                .setErrorCode(reply.error().code())
                .setBrokerEpoch(reply.brokerEpoch()));
    }

    /** The wire request as the controller takes it (a listener's protocol by name, as the metadata records keep it). */
    static BrokerRegistrationRequest toDomain(BrokerRegistrationRequestData data) {
        List<Endpoint> listeners = new ArrayList<>();
        for (BrokerRegistrationRequestData.Listener l : data.listeners()) {
            listeners.add(
                    new Endpoint(l.name(), l.host(), l.port(), SecurityProtocol.forId(l.securityProtocol()).name));
        }
        Map<String, VersionRange> features = new TreeMap<>();
        for (BrokerRegistrationRequestData.Feature f : data.features()) {
            features.put(f.name(), VersionRange.of(f.minSupportedVersion(), f.maxSupportedVersion()));
        }
        return new BrokerRegistrationRequest(
                data.brokerId(),
                data.clusterId(),
                data.incarnationId(),
                listeners,
                data.rack(),
                features,
                data.previousBrokerEpoch());
    }
}
