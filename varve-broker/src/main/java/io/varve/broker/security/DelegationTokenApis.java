package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.api.ApiRegistry;
import io.varve.broker.api.security.DelegationTokenGate;
import io.varve.broker.api.security.DescribeDelegationTokenHandler;
import io.varve.metadata.image.MetadataImage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The delegation-token APIs on the broker listener, at Kafka 4.4's versions: Create (1-3), Renew (1-2) and Expire
 * (1-2) checked here and forwarded to the active controller, Describe (1-3) from the image. Advertised whether or not
 * tokens are on, as Kafka does: off, they answer DELEGATION_TOKEN_AUTH_DISABLED.
 */
public final class DelegationTokenApis {
    private DelegationTokenApis() {}

    public static void register(
            ApiRegistry registry,
            ApiHandler forwarded,
            DelegationTokenSettings settings,
            Function<String, SecurityProtocol> listenerProtocols,
            BrokerAuthorizer authorizer,
            Supplier<MetadataImage> image) {
        ApiHandler gate = new DelegationTokenGate(forwarded, settings, listenerProtocols, authorizer);
        registry.register(ApiKeys.CREATE_DELEGATION_TOKEN, 1, 3, gate)
                .register(ApiKeys.RENEW_DELEGATION_TOKEN, 1, 2, gate)
                .register(ApiKeys.EXPIRE_DELEGATION_TOKEN, 1, 2, gate)
                .register(
                        ApiKeys.DESCRIBE_DELEGATION_TOKEN,
                        1,
                        3,
                        new DescribeDelegationTokenHandler(image, settings, listenerProtocols, authorizer));
    }
}
