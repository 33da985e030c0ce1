package io.varve.broker.security;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.protocol.ErrorResponses;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.protocol.ResponseWriter;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import io.varve.security.authorizer.ResourceType;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With an authorizer, what Kafka's controller checks before it hands a Raft request of its controller listener to the
 * quorum: CLUSTER_ACTION on the cluster for Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch (a voter's or an
 * observer's), FetchSnapshot and UpdateRaftVoter, ALTER for AddRaftVoter and RemoveRaftVoter, DESCRIBE for
 * DescribeQuorum. A request the connection's principal may not make gets the API's error response with
 * CLUSTER_AUTHORIZATION_FAILED and never reaches the quorum. The nodes' principal (their certificate's or SASL
 * login's, {@code User:ANONYMOUS} on PLAINTEXT) is meant to be in {@code super.users}, as in Kafka.
 *
 * <p>The controller's ACLs are those of its metadata image, which is installed once the controller runs ({@link
 * #useAuthorizer}); until then only {@code super.users} (and {@code allow.everyone.if.no.acl.found}) decide, so the
 * voters can elect while the node starts and nobody else gets in early. A refused principal is logged once per API,
 * not per request (a refused voter retries its fetches every few hundred milliseconds).
 */
public final class RaftAuthorization {
    private static final Logger LOG = LoggerFactory.getLogger(RaftAuthorization.class);
    /** How many refused principal/API pairs are remembered for logging once: a bound, not a cache to be tuned. */
    private static final int MAX_LOGGED = 1_024;

    private volatile BrokerAuthorizer authorizer;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /** Before the controller's image is there: {@code super.users} and {@code allow.everyone.if.no.acl.found} only. */
    public RaftAuthorization(SecurityConfig.Authorization settings) {
        this.authorizer = new BrokerAuthorizer(
                () -> MetadataImage.EMPTY, settings.superUsers(), settings.allowEveryoneIfNoAclFound());
    }

    /** From now on the ACLs of the controller's image decide too. */
    public void useAuthorizer(BrokerAuthorizer next) {
        this.authorizer = next;
    }

    /** The operation on the cluster Kafka's controller requires for a Raft API. */
    static AclOperation operation(ApiKeys api) {
        return switch (api) {
            case DESCRIBE_QUORUM -> AclOperation.DESCRIBE;
            case ADD_RAFT_VOTER, REMOVE_RAFT_VOTER -> AclOperation.ALTER;
            default -> AclOperation.CLUSTER_ACTION;
        };
    }

    /**
     * Null when {@code connection}'s principal may make the Raft request in {@code frame} (left as it is); otherwise
     * the error response to send instead.
     */
    public ResponseFrame refusal(ByteBuffer frame, ConnectionInfo connection) {
        ApiKeys api = ApiKeys.forId(frame.getShort(frame.position()));
        AclOperation operation = operation(api);
        Principal principal = connection.authentication().principal();
        if (authorizer.authorize(
                principal,
                host(connection.remoteAddress()),
                operation,
                ResourceType.CLUSTER,
                BrokerAuthorizer.CLUSTER_NAME)) {
            return null;
        }
        RequestParser.Parsed parsed = RequestParser.parseHeader(frame.duplicate());
        ApiMessage error = ErrorResponses.of(
                RequestParser.parseBody(api, parsed.apiVersion(), parsed.body()),
                new ClusterAuthorizationException(
                        "Not authorized: " + api.name + " needs " + operation.name() + " on the cluster"));
        String key = principal + "/" + api;
        if (logged.size() < MAX_LOGGED && logged.add(key)) {
            LOG.warn(
                    "Refused {} from {} ({}) on listener {}: {} lacks {} on the cluster (logged once per principal"
                            + " and API)",
                    api.name,
                    connection.remoteAddress(),
                    principal,
                    connection.listenerName(),
                    principal,
                    operation.name());
        }
        return ResponseWriter.write(api, parsed.apiVersion(), parsed.header().correlationId(), error);
    }

    private static String host(InetSocketAddress address) {
        if (address == null) {
            return "";
        }
        return address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
    }
}
