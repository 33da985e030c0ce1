package io.varve.broker.api.admin;

import io.varve.metadata.controller.AlterConfigResult;
import io.varve.metadata.image.ConfigResource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * What IncrementalAlterConfigs and AlterConfigs share: the broker's own checks of each resource
 * (named at most once, a type Varve handles, this node if a broker), then one controller call for the
 * resources that pass, and one outcome per requested resource in request order.
 */
final class ConfigAlteration {

    /** A requested resource as it appears on the wire, with its changes turned into the controller's form. */
    interface Requested<C> {
        byte type();

        String name();

        /** @throws ApiException if the changes are malformed */
        C changes();
    }

    record Outcome(byte type, String name, Errors error, String message) {}

    private ConfigAlteration() {}

    static <C> CompletableFuture<List<Outcome>> run(
            List<? extends Requested<C>> requested,
            int nodeId,
            Function<Map<ConfigResource, C>, CompletableFuture<List<AlterConfigResult>>> controllerCall) {
        Map<String, Integer> occurrences = new HashMap<>();
        requested.forEach(r -> occurrences.merge(r.type() + ":" + r.name(), 1, Integer::sum));
        Outcome[] outcomes = new Outcome[requested.size()];
        Map<ConfigResource, C> toController = new LinkedHashMap<>();
        List<Integer> sentIndexes = new ArrayList<>();
        for (int i = 0; i < requested.size(); i++) {
            Requested<C> r = requested.get(i);
            if (occurrences.get(r.type() + ":" + r.name()) > 1) {
                outcomes[i] = new Outcome(
                        r.type(), r.name(), Errors.INVALID_REQUEST, "Each resource must appear at most once.");
                continue;
            }
            try {
                ConfigResource resource = ConfigResources.forAlter(r.type(), r.name(), nodeId);
                toController.put(resource, r.changes());
                sentIndexes.add(i);
            } catch (ApiException e) {
                outcomes[i] = new Outcome(r.type(), r.name(), Errors.forException(e), e.getMessage());
            }
        }
        if (toController.isEmpty()) {
            return CompletableFuture.completedFuture(List.of(outcomes));
        }
        return controllerCall.apply(toController).thenApply(results -> {
            if (results.size() != sentIndexes.size()) {
                throw new IllegalStateException(
                        "the controller answered " + results.size() + " of " + sentIndexes.size() + " resources");
            }
            Iterator<AlterConfigResult> answers = results.iterator();
            for (int index : sentIndexes) {
                AlterConfigResult answer = answers.next();
                Requested<C> r = requested.get(index);
                outcomes[index] = new Outcome(r.type(), r.name(), answer.error(), answer.message());
            }
            return List.of(outcomes);
        });
    }
}
