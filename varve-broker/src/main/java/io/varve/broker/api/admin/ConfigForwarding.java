package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.logging.LoggerLevels;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A broker's IncrementalAlterConfigs and AlterConfigs: as Kafka's broker, it answers itself a broker resource that
 * names another broker (INVALID_REQUEST: Admin sends those to the broker they name) and forwards the rest to the
 * controller, which takes any broker id; the answers come back in request order. A BROKER_LOGGER resource (this
 * node's logger levels) is answered here too: levels are the node's own and Kafka never stores them.
 */
public final class ConfigForwarding {
    private static final byte BROKER = 4;
    private static final byte BROKER_LOGGER = 8;

    /** How this node answers a BROKER_LOGGER resource itself (logger levels are the node's own, never stored). */
    private record LocalAnswer(Errors error, String message) {}

    private ConfigForwarding() {}

    /**
     * A check this broker makes on its own broker resource (or the cluster default) before forwarding, such as a new
     * keystore that must load: a refusal is answered INVALID_CONFIG and nothing is stored.
     */
    @FunctionalInterface
    public interface LocalCheck {
        LocalCheck NONE = (name, changes, replace) -> null;

        /**
         * @param changes keys set (values) and deleted (null values)
         * @param replace true for AlterConfigs, which replaces the resource's configs
         * @return why the change is refused, or null
         */
        String refusal(String resourceName, Map<String, String> changes, boolean replace);
    }

    /** One resource as both APIs carry it, and how to rebuild each API's request and answer around a subset. */
    private record Shape<R, A>(
            Function<R, Byte> type,
            Function<R, String> name,
            Function<List<R>, ApiMessage> requestWith,
            Function<ApiMessage, List<A>> answers,
            Function<List<A>, ApiMessage> responseWith,
            AnswerMaker<A> refusal,
            Function<R, Map<String, String>> changes,
            boolean replace,
            Function<R, LocalAnswer> loggers) {}

    @FunctionalInterface
    private interface AnswerMaker<A> {
        A make(byte type, String name, Errors error, String message);
    }

    public static ApiHandler incremental(ApiHandler forward, int nodeId) {
        return incremental(forward, nodeId, LocalCheck.NONE, LoggerLevels.NONE);
    }

    public static ApiHandler incremental(ApiHandler forward, int nodeId, LocalCheck check) {
        return incremental(forward, nodeId, check, LoggerLevels.NONE);
    }

    public static ApiHandler incremental(ApiHandler forward, int nodeId, LocalCheck check, LoggerLevels loggers) {
        return request -> {
            IncrementalAlterConfigsRequestData data = request.body();
            return run(
                    request,
                    forward,
                    nodeId,
                    new ArrayList<>(data.resources()),
                    new Shape<
                            IncrementalAlterConfigsRequestData.AlterConfigsResource,
                            IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse>(
                            r -> r.resourceType(),
                            r -> r.resourceName(),
                            subset -> {
                                IncrementalAlterConfigsRequestData copy = data.duplicate();
                                copy.resources().clear();
                                subset.forEach(r -> copy.resources().add(r.duplicate()));
                                return copy;
                            },
                            answer -> ((IncrementalAlterConfigsResponseData) answer).responses(),
                            answers -> new IncrementalAlterConfigsResponseData().setResponses(answers),
                            (type, name, error, message) ->
                                    new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse()
                                            .setResourceType(type)
                                            .setResourceName(name)
                                            .setErrorCode(error.code())
                                            .setErrorMessage(message),
                            r -> {
                                Map<String, String> changes = new HashMap<>();
                                // DELETE (1) removes the key; the other operations leave a value
                                r.configs()
                                        .forEach(c ->
                                                changes.put(c.name(), c.configOperation() == 1 ? null : c.value()));
                                return changes;
                            },
                            false,
                            r -> alterLoggers(r, nodeId, loggers, data.validateOnly())),
                    check);
        };
    }

    public static ApiHandler legacy(ApiHandler forward, int nodeId) {
        return legacy(forward, nodeId, LocalCheck.NONE);
    }

    public static ApiHandler legacy(ApiHandler forward, int nodeId, LocalCheck check) {
        return request -> {
            AlterConfigsRequestData data = request.body();
            return run(
                    request,
                    forward,
                    nodeId,
                    new ArrayList<>(data.resources()),
                    new Shape<
                            AlterConfigsRequestData.AlterConfigsResource,
                            AlterConfigsResponseData.AlterConfigsResourceResponse>(
                            r -> r.resourceType(),
                            r -> r.resourceName(),
                            subset -> {
                                AlterConfigsRequestData copy = data.duplicate();
                                copy.resources().clear();
                                subset.forEach(r -> copy.resources().add(r.duplicate()));
                                return copy;
                            },
                            answer -> ((AlterConfigsResponseData) answer).responses(),
                            answers -> new AlterConfigsResponseData().setResponses(answers),
                            (type, name, error, message) -> new AlterConfigsResponseData.AlterConfigsResourceResponse()
                                    .setResourceType(type)
                                    .setResourceName(name)
                                    .setErrorCode(error.code())
                                    .setErrorMessage(message),
                            r -> {
                                Map<String, String> changes = new HashMap<>();
                                r.configs().forEach(c -> changes.put(c.name(), c.value()));
                                return changes;
                            },
                            true,
                            r -> new LocalAnswer(
                                    Errors.INVALID_REQUEST,
                                    "AlterConfigs does not change logger levels: use IncrementalAlterConfigs.")),
                    check);
        };
    }

    /** IncrementalAlterConfigs of a BROKER_LOGGER resource: SET a level or DELETE it (inherit), on this node only. */
    private static LocalAnswer alterLoggers(
            IncrementalAlterConfigsRequestData.AlterConfigsResource r,
            int nodeId,
            LoggerLevels loggers,
            boolean validateOnly) {
        try {
            ConfigResources.checkLoggerNode(r.resourceName(), nodeId);
        } catch (InvalidRequestException e) {
            return new LocalAnswer(Errors.INVALID_REQUEST, e.getMessage());
        }
        Map<String, String> changes = new java.util.LinkedHashMap<>();
        for (IncrementalAlterConfigsRequestData.AlterableConfig c : r.configs()) {
            switch (c.configOperation()) {
                case 0 -> changes.put(c.name(), c.value()); // SET
                case 1 -> changes.put(c.name(), null); // DELETE
                default -> {
                    return new LocalAnswer(
                            Errors.INVALID_REQUEST,
                            "Operation " + c.configOperation() + " is not supported for a BROKER_LOGGER resource:"
                                    + " only SET and DELETE are.");
                }
            }
        }
        String refusal = loggers.apply(changes, validateOnly);
        return refusal == null ? new LocalAnswer(Errors.NONE, null) : new LocalAnswer(Errors.INVALID_CONFIG, refusal);
    }

    private static <R, A> CompletableFuture<ApiMessage> run(
            RequestContext request,
            ApiHandler forward,
            int nodeId,
            List<R> resources,
            Shape<R, A> shape,
            LocalCheck check) {
        List<A> refused = new ArrayList<>();
        List<R> forwarded = new ArrayList<>();
        List<Boolean> refusedAt = new ArrayList<>();
        for (R r : resources) {
            byte type = shape.type().apply(r);
            String name = shape.name().apply(r);
            String refusal = null;
            Errors error = Errors.INVALID_REQUEST;
            if (type == BROKER_LOGGER) {
                LocalAnswer answer = shape.loggers().apply(r);
                refusedAt.add(true);
                refused.add(shape.refusal().make(type, name, answer.error(), answer.message()));
                continue;
            }
            if (type == BROKER) {
                try {
                    ConfigResources.forAlter(type, name, nodeId);
                } catch (InvalidRequestException e) {
                    refusal = e.getMessage();
                }
                if (refusal == null) {
                    refusal = check.refusal(name, shape.changes().apply(r), shape.replace());
                    error = Errors.INVALID_CONFIG;
                }
            }
            refusedAt.add(refusal != null);
            if (refusal != null) {
                refused.add(shape.refusal().make(type, name, error, refusal));
            } else {
                forwarded.add(r);
            }
        }
        if (refused.isEmpty()) {
            return forward.handle(request);
        }
        CompletableFuture<List<A>> answered;
        if (forwarded.isEmpty()) {
            answered = CompletableFuture.completedFuture(List.of());
        } else {
            ApiMessage subset = shape.requestWith().apply(forwarded);
            RequestContext narrowed = new RequestContext(
                    request.header(),
                    request.apiKey(),
                    request.apiVersion(),
                    ClientFrames.asRequest(request.apiKey(), request.apiVersion(), subset),
                    request.listenerName(),
                    request.clientAddress(),
                    request.receivedNanos());
            answered = forward.handle(narrowed).thenApply(shape.answers());
        }
        return answered.thenApply(answers -> {
            List<A> merged = new ArrayList<>(resources.size());
            int nextRefused = 0;
            int nextAnswer = 0;
            for (boolean wasRefused : refusedAt) {
                if (wasRefused) {
                    merged.add(refused.get(nextRefused++));
                } else if (nextAnswer < answers.size()) {
                    merged.add(answers.get(nextAnswer++));
                }
            }
            return shape.responseWith().apply(merged);
        });
    }
}
