package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.quota.ClientQuotaControl;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * AlterClientQuotas on the active controller (brokers forward it): the request's entries as {@link
 * ClientQuotaControl} entries, one result per entry with the entity echoed back, as Kafka answers.
 */
public final class AlterClientQuotasHandler implements ApiHandler {
    private final QuorumController controller;

    public AlterClientQuotasHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterClientQuotasRequestData data = request.body();
        List<ClientQuotaControl.Entry> entries = new ArrayList<>();
        for (AlterClientQuotasRequestData.EntryData e : data.entries()) {
            List<Map.Entry<String, String>> entity = new ArrayList<>();
            e.entity().forEach(part -> entity.add(new SimpleEntry<>(part.entityType(), part.entityName())));
            List<ClientQuotaControl.Op> ops = new ArrayList<>();
            e.ops().forEach(op -> ops.add(new ClientQuotaControl.Op(op.key(), op.value(), op.remove())));
            entries.add(new ClientQuotaControl.Entry(entity, ops));
        }
        return controller.alterClientQuotas(entries, data.validateOnly()).thenApply(results -> {
            AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
            for (int i = 0; i < results.size(); i++) {
                ErrorReply result = results.get(i);
                AlterClientQuotasResponseData.EntryData entry = new AlterClientQuotasResponseData.EntryData()
                        .setErrorCode(result.error().code())
                        .setErrorMessage(result.message());
                data.entries().get(i).entity().forEach(part -> entry.entity()
                        .add(new AlterClientQuotasResponseData.EntityData()
                                .setEntityType(part.entityType())
                                .setEntityName(part.entityName())));
                response.entries().add(entry);
            }
            return response;
        });
    }
}
