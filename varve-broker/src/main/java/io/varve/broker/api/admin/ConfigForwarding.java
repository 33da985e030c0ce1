package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
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
 * controller, which takes any broker id; the answers come back in request order.
 */
public final class ConfigForwarding {
    private static final byte BROKER = 4;

    private ConfigForwarding() {}

    /** One resource as both APIs carry it, and how to rebuild each API's request and answer around a subset. */
    private record Shape<R, A>(
            Function<R, Byte> type,
            Function<R, String> name,
            Function<List<R>, ApiMessage> requestWith,
            Function<ApiMessage, List<A>> answers,
            Function<List<A>, ApiMessage> responseWith,
            AnswerMaker<A> refusal) {}

    @FunctionalInterface
    private interface AnswerMaker<A> {
        A make(byte type, String name, Errors error, String message);
    }

    public static ApiHandler incremental(ApiHandler forward, int nodeId) {
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
                                            .setErrorMessage(message)));
        };
    }

    public static ApiHandler legacy(ApiHandler forward, int nodeId) {
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
                                    .setErrorMessage(message)));
        };
    }

    private static <R, A> CompletableFuture<ApiMessage> run(
            RequestContext request, ApiHandler forward, int nodeId, List<R> resources, Shape<R, A> shape) {
        List<A> refused = new ArrayList<>();
        List<R> forwarded = new ArrayList<>();
        List<Boolean> refusedAt = new ArrayList<>();
        for (R r : resources) {
            byte type = shape.type().apply(r);
            String name = shape.name().apply(r);
            String refusal = null;
            if (type == BROKER) {
                try {
                    ConfigResources.forAlter(type, name, nodeId);
                } catch (InvalidRequestException e) {
                    refusal = e.getMessage();
                }
            }
            refusedAt.add(refusal != null);
            if (refusal != null) {
                refused.add(shape.refusal().make(type, name, Errors.INVALID_REQUEST, refusal));
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
