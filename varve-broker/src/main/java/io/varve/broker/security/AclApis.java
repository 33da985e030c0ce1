package io.varve.broker.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.api.ApiRegistry;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * CreateAcls, DescribeAcls and DeleteAcls on a broker, always advertised (MirrorMaker 2 and {@code kafka-acls} ask):
 * with an authorizer the writes go to the controller and DescribeAcls reads the image; without one every answer is
 * SECURITY_DISABLED, as Kafka's.
 */
public final class AclApis {

    public static void register(
            ApiRegistry registry, boolean authorizerEnabled, ApiHandler forwarded, ApiHandler describe) {
        ApiHandler disabled = request -> CompletableFuture.completedFuture(
                request.errorResponse(new SecurityDisabledException("No Authorizer is configured on the broker")));
        for (ApiKeys api : new ApiKeys[] {ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS, ApiKeys.DESCRIBE_ACLS}) {
            ApiHandler handler = !authorizerEnabled ? disabled : api == ApiKeys.DESCRIBE_ACLS ? describe : forwarded;
            registry.register(api, api.oldestVersion(), api.latestVersion(), handler);
        }
    }

    private AclApis() {}
}
