package io.varve.broker.group;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.RequestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator (v0-6, batched keys from v4): the broker leading the group's {@code __consumer_offsets}
 * partition, creating the topic on first use; for key type TRANSACTION the same through the transaction
 * coordinator ({@code __transaction_state}), COORDINATOR_NOT_AVAILABLE when none is given; for key type SHARE
 * ("groupId:topicId:partition", what brokers ask for a share-partition's state; KIP-932) the share coordinator, the
 * leader of the key's {@code __share_group_state} partition, and INVALID_REQUEST for a key not of that form.
 */
public final class FindCoordinatorHandler implements ApiHandler {
    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;
    private static final byte SHARE = 2;
    private static final short FIRST_BATCHED_VERSION = 4;

    /** Where the coordinator of a key lives, for key types other than groups. */
    public interface Coordinators {
        /** Completes once the coordinator's internal topic exists. */
        CompletableFuture<Void> ensureTopic();

        /** The node coordinating {@code key}, or -1. */
        int coordinatorNode(String key);
    }

    private final GroupCoordinatorRuntime runtime;
    private final MetadataCache cache;
    private final Coordinators transactions;
    private final Coordinators shares;

    public FindCoordinatorHandler(GroupCoordinatorRuntime runtime, MetadataCache cache) {
        this(runtime, cache, null, null);
    }

    /** {@code transactions} / {@code shares} null: key type TRANSACTION / SHARE gets COORDINATOR_NOT_AVAILABLE. */
    public FindCoordinatorHandler(
            GroupCoordinatorRuntime runtime, MetadataCache cache, Coordinators transactions, Coordinators shares) {
        this.runtime = runtime;
        this.cache = cache;
        this.transactions = transactions;
        this.shares = shares;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        FindCoordinatorRequestData data = request.body();
        boolean batched = request.apiVersion() >= FIRST_BATCHED_VERSION;
        List<String> keys = batched ? data.coordinatorKeys() : List.of(data.key());
        byte keyType = data.keyType();
        CompletableFuture<Errors> ready;
        if (keyType == GROUP) {
            ready = runtime.ensureTopic().handle((v, e) -> e == null ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE);
        } else if (keyType == TRANSACTION && transactions != null) {
            ready = transactions
                    .ensureTopic()
                    .handle((v, e) -> e == null ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE);
        } else if (keyType == TRANSACTION) {
            ready = CompletableFuture.completedFuture(Errors.COORDINATOR_NOT_AVAILABLE);
        } else if (keyType == SHARE) {
            ready = shares == null
                    ? CompletableFuture.completedFuture(Errors.COORDINATOR_NOT_AVAILABLE)
                    : shares.ensureTopic().handle((v, e) -> e == null ? Errors.NONE : Errors.COORDINATOR_NOT_AVAILABLE);
        } else {
            ready = CompletableFuture.completedFuture(Errors.INVALID_REQUEST);
        }
        return ready.thenApply(error -> {
            List<Coordinator> coordinators = new ArrayList<>();
            for (String key : keys) {
                coordinators.add(coordinator(key, error, keyType, request.listenerName()));
            }
            if (batched) {
                return new FindCoordinatorResponseData().setCoordinators(coordinators);
            }
            Coordinator c = coordinators.get(0);
            return new FindCoordinatorResponseData()
                    .setErrorCode(c.errorCode())
                    .setErrorMessage(c.errorMessage())
                    .setNodeId(c.nodeId())
                    .setHost(c.host())
                    .setPort(c.port());
        });
    }

    private Coordinator coordinator(String key, Errors error, byte keyType, String listenerName) {
        Coordinator c = new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1);
        if (error == Errors.NONE && keyType == SHARE && !isShareKey(key)) {
            return c.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("A share coordinator key is groupId:topicId:partition.");
        }
        if (error != Errors.NONE) {
            String message = keyType == TRANSACTION && transactions == null
                    ? "Transactions are not supported yet."
                    : error.message();
            return c.setErrorCode(error.code()).setErrorMessage(message);
        }
        int node = keyType == TRANSACTION
                ? transactions.coordinatorNode(key)
                : keyType == SHARE ? shares.coordinatorNode(key) : runtime.coordinatorNode(key);
        MetadataSnapshot snapshot = cache.snapshot();
        for (MetadataSnapshot.BrokerInfo b : snapshot.brokers()) {
            if (b.nodeId() == node) {
                var endpoint = b.endpoint(listenerName);
                if (endpoint.isPresent()) {
                    return c.setErrorCode(Errors.NONE.code())
                            .setErrorMessage(null)
                            .setNodeId(node)
                            .setHost(endpoint.get().host())
                            .setPort(endpoint.get().port());
                }
            }
        }
        return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                .setErrorMessage("The coordinator of this "
                        + (keyType == TRANSACTION ? "transactional id" : keyType == SHARE ? "share-partition" : "group")
                        + " is not available yet.");
    }

    /** Whether {@code key} is "groupId:topicId:partition" (the group id may hold colons itself). */
    static boolean isShareKey(String key) {
        int last = key == null ? -1 : key.lastIndexOf(':');
        int middle = last <= 0 ? -1 : key.lastIndexOf(':', last - 1);
        if (middle <= 0) {
            return false;
        }
        try {
            org.apache.kafka.common.Uuid.fromString(key.substring(middle + 1, last));
            return Integer.parseInt(key.substring(last + 1)) >= 0;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
