package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.quota.ClientQuotaKeys;
import io.varve.metadata.image.MetadataImage;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData.ComponentData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntityData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.EntryData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData.ValueData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeClientQuotas from this broker's image, with Kafka's filter semantics: each component names an entity type
 * and matches its name exactly (0), the type's default entity (1) or any named entity (2); an entity matches when
 * every component does, and with {@code strict} only if it has no other entity types. A filter naming a type twice,
 * an exact match without a name or an ip beside user or client-id is INVALID_REQUEST.
 */
public final class DescribeClientQuotasHandler implements ApiHandler {
    static final byte MATCH_EXACT = 0;
    static final byte MATCH_DEFAULT = 1;
    static final byte MATCH_SPECIFIED = 2;

    private final Supplier<MetadataImage> image;

    public DescribeClientQuotasHandler(Supplier<MetadataImage> image) {
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeClientQuotasRequestData data = request.body();
        DescribeClientQuotasResponseData response = new DescribeClientQuotasResponseData();
        String refused = check(data.components());
        if (refused != null) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage(refused)
                    .setEntries(null));
        }
        image.get().clientQuotas().entities().forEach((entity, quotas) -> {
            if (!matches(entity, data.components(), data.strict())) {
                return;
            }
            EntryData entry = new EntryData();
            entity.forEach((type, name) ->
                    entry.entity().add(new EntityData().setEntityType(type).setEntityName(name)));
            quotas.forEach((key, value) ->
                    entry.values().add(new ValueData().setKey(key).setValue(value)));
            response.entries().add(entry);
        });
        return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()));
    }

    private static String check(List<ComponentData> components) {
        Set<String> types = new HashSet<>();
        for (ComponentData c : components) {
            if (!types.add(c.entityType())) {
                return "Entity type " + c.entityType() + " cannot appear more than once in the filter.";
            }
            if (c.matchType() == MATCH_EXACT && c.match() == null) {
                return "Exact match of " + c.entityType() + " needs a name.";
            }
            if (c.matchType() < MATCH_EXACT || c.matchType() > MATCH_SPECIFIED) {
                return "Unknown match type " + c.matchType();
            }
        }
        if (types.contains(ClientQuotaKeys.IP)
                && (types.contains(ClientQuotaKeys.USER) || types.contains(ClientQuotaKeys.CLIENT_ID))) {
            return "Invalid entity filter component combination, IP filter component should not be used with"
                    + " user or clientId filter component.";
        }
        return null;
    }

    static boolean matches(Map<String, String> entity, List<ComponentData> components, boolean strict) {
        if (strict && entity.size() != components.size()) {
            return false;
        }
        for (ComponentData c : components) {
            if (!entity.containsKey(c.entityType())) {
                return false;
            }
            String name = entity.get(c.entityType());
            boolean ok =
                    switch (c.matchType()) {
                        case MATCH_EXACT -> Objects.equals(name, c.match());
                        case MATCH_DEFAULT -> name == null;
                        default -> name != null;
                    };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
