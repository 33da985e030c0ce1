package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeClientQuotas while Varve has no client quotas (AlterClientQuotas is not offered): every filter matches
 * nothing. Answered so that {@code kafka-configs --describe --entity-type users}, which asks for quotas beside the
 * SCRAM credentials, works.
 */
public final class DescribeClientQuotasHandler implements ApiHandler {

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        return CompletableFuture.completedFuture(new DescribeClientQuotasResponseData()
                .setErrorCode(Errors.NONE.code())
                .setEntries(List.of()));
    }
}
