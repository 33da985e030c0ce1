package io.varve.broker.raft;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.protocol.ResponseWriter;
import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.RaftMessage;
import io.varve.raft.core.message.RaftRequest;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.VoteRequest;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server half of {@link KafkaRaftTransport}: what the broker's {@code SocketServer} hands the frames
 * of its controller listener to. A frame is parsed (header and body) and mapped to a Raft request before
 * {@link #dispatch} returns, so nothing keeps the frame's buffer; the request goes to the runtime with a
 * correlation id of this dispatcher's own, and the future completes when the core answers (a parked fetch
 * answers up to its wait later) with the response written at the request's version and correlation id.
 * Admin requests that arrive on a client listener take the same path through {@link #submit}.
 *
 * <p>With {@link ControllerQuorumInfo} set, a fetch response names the leader's endpoint (NodeEndpoints) when this
 * replica knows it, so an observer that came through a bootstrap server can reach the leader, and DescribeQuorum
 * leaves with wall-clock timestamps and the endpoints of static voters ({@link DescribeQuorumAnswers}). ApiVersions and
 * DescribeCluster are the controller's ({@code io.varve.broker.controller.ControllerApis}).
 *
 * <p>Bounded: the network layer handles one request per connection at a time; a request the runtime
 * refuses (its queue is full), that is not a Raft request, or that gets no answer within {@code
 * requestTimeoutMs} closes its connection (the peer reconnects and Raft retries). Thread-safe.
 */
public final class RaftRequestDispatcher implements RequestDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(RaftRequestDispatcher.class);
    /** The source id of requests from admin clients, which are not replicas: answers go back by correlation id. */
    public static final int ADMIN_SOURCE_ID = Integer.MAX_VALUE;

    private static final Set<ApiKeys> RAFT_APIS = Set.of(
            ApiKeys.VOTE,
            ApiKeys.BEGIN_QUORUM_EPOCH,
            ApiKeys.END_QUORUM_EPOCH,
            ApiKeys.FETCH,
            ApiKeys.FETCH_SNAPSHOT,
            ApiKeys.DESCRIBE_QUORUM,
            ApiKeys.ADD_RAFT_VOTER,
            ApiKeys.REMOVE_RAFT_VOTER,
            ApiKeys.UPDATE_RAFT_VOTER);
    /** The first Fetch version with the NodeEndpoints tagged field. */
    private static final short FETCH_NODE_ENDPOINTS_VERSION = 16;

    /** The Raft APIs a controller listener serves (a controller advertises them in ApiVersions). */
    public static Set<ApiKeys> servedApis() {
        return RAFT_APIS;
    }

    private final RaftWireMapping mapping;
    private final long requestTimeoutMs;
    private final AtomicLong correlationIds = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private volatile Predicate<InboundMessage> inbound;
    private volatile ControllerQuorumInfo info;

    public RaftRequestDispatcher(RaftWireMapping mapping, long requestTimeoutMs) {
        this.mapping = mapping;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /** Where parsed requests go: returns false when it refuses one (a full queue). */
    void start(Predicate<InboundMessage> inbound) {
        this.inbound = inbound;
    }

    /** Where the leader endpoints of fetch answers and DescribeQuorum's wall clock come from; null: neither. */
    public void describeQuorumWith(ControllerQuorumInfo info) {
        this.info = info;
    }

    @Override
    public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
        RequestParser.Parsed parsed = RequestParser.parseHeader(frame);
        ApiKeys api = parsed.apiKey();
        short version = parsed.apiVersion();
        int headerCorrelationId = parsed.header().correlationId();
        if (!serves(api, version)) {
            return CompletableFuture.failedFuture(new InvalidRaftMessageException(
                    api + " v" + version + " is not a Raft request this controller listener serves"));
        }
        ApiMessage body = RequestParser.parseBody(api, version, parsed.body()).data();
        return submit(api, version, body)
                .thenApply(data -> ResponseWriter.write(api, version, headerCorrelationId, data));
    }

    /** Whether {@link #submit} takes this API at this version. */
    public static boolean serves(ApiKeys api, short version) {
        return RAFT_APIS.contains(api)
                && version >= RaftApis.oldestVersion(api)
                && version <= RaftApis.latestVersion(api);
    }

    /**
     * Hands a parsed Raft request to the runtime; the future completes with the core's answer as the Kafka message
     * at {@code version}.
     *
     * @throws InvalidRaftMessageException when {@code body} is not a Raft request for {@code __cluster_metadata-0}
     */
    public CompletableFuture<ApiMessage> submit(ApiKeys api, short version, ApiMessage body) {
        RaftRequest request = (RaftRequest) mapping.fromKafka(body, version);
        Predicate<InboundMessage> to = inbound;
        if (to == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("the Raft transport is not started"));
        }
        long correlationId = correlationIds.incrementAndGet();
        CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        pending.put(correlationId, new Pending(api, version, response));
        response.orTimeout(requestTimeoutMs, TimeUnit.MILLISECONDS)
                .whenComplete((r, e) -> pending.remove(correlationId));
        if (!to.test(new InboundMessage(sourceOf(request), correlationId, request))) {
            response.completeExceptionally(new IllegalStateException("the Raft runtime's queue is full"));
        }
        return response;
    }

    /** Sends the core's answer to the connection that asked; a late answer (timed out, closed) is dropped. */
    void respond(OutboundMessage message) {
        Pending waiting = pending.remove(message.correlationId());
        if (waiting == null) {
            LOG.debug(
                    "Dropping a late {} for {}", message.message().getClass().getSimpleName(), message.destinationId());
            return;
        }
        try {
            RaftMessage answer = message.message();
            ControllerQuorumInfo quorum = info;
            if (answer instanceof DescribeQuorumResponse describe && quorum != null) {
                answer = DescribeQuorumAnswers.withWallClock(describe, quorum);
            }
            ApiMessage data = mapping.toKafka(answer, waiting.version());
            if (data instanceof FetchResponseData fetch
                    && quorum != null
                    && waiting.version() >= FETCH_NODE_ENDPOINTS_VERSION
                    && answer instanceof FetchResponse raftFetch
                    && RaftMessage.isId(raftFetch.leaderId())) {
                quorum.addresses().endpointOf(raftFetch.leaderId()).ifPresent(endpoint -> fetch.nodeEndpoints()
                        .add(new FetchResponseData.NodeEndpoint()
                                .setNodeId(raftFetch.leaderId())
                                .setHost(endpoint.host())
                                .setPort(endpoint.port())));
            }
            waiting.future().complete(data);
        } catch (RuntimeException e) {
            waiting.future().completeExceptionally(e);
        }
    }

    /** Requests waiting for the core's answer. */
    int pendingCount() {
        return pending.size();
    }

    /** The replica a request comes from: the core answers it there (Kafka names it in every Raft request). */
    static int sourceOf(RaftRequest request) {
        int id;
        if (request instanceof VoteRequest vote) {
            id = vote.replicaId();
        } else if (request instanceof BeginQuorumEpochRequest begin) {
            id = begin.leaderId();
        } else if (request instanceof EndQuorumEpochRequest end) {
            id = end.leaderId();
        } else if (request instanceof FetchRequest fetch) {
            id = fetch.replicaId();
        } else if (request instanceof FetchSnapshotRequest fetchSnapshot) {
            id = fetchSnapshot.replicaId();
        } else if (request instanceof UpdateVoterRequest update) {
            id = update.voter().id();
        } else {
            return ADMIN_SOURCE_ID; // DescribeQuorum, AddRaftVoter, RemoveRaftVoter: an admin client
        }
        if (!RaftMessage.isId(id)) {
            throw new InvalidRaftMessageException(
                    request.getClass().getSimpleName() + " names no sending replica: " + id);
        }
        return id;
    }

    private record Pending(ApiKeys api, short version, CompletableFuture<ApiMessage> future) {}
}
