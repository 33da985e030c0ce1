package io.varve.broker.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.protocol.ClientFrames;
import io.varve.security.Principal;
import io.varve.security.authorizer.AclOperation;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.VoteRequestData;
import org.apache.kafka.common.message.VoteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** Raft requests on the controller listener need what Kafka's controller asks for, and get its error otherwise. */
class RaftAuthorizationTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40_000);

    /** A connection whose certificate named {@code principal} (an SSL controller listener). */
    private static ConnectionInfo as(Principal principal) {
        ConnectionAuthentication authentication = new ConnectionAuthentication(SecurityProtocol.SSL);
        authentication.tlsAuthenticated(principal);
        return new ConnectionInfo("CONTROLLER", PEER, 1, authentication);
    }

    private static ByteBuffer frame(ApiKeys api, short version, ApiMessage body) {
        ByteBuffer framed = ClientFrames.requestFrame(api, version, 42, "raft-peer", body);
        framed.getInt(); // the size: the dispatcher sees frames without it
        return framed.slice();
    }

    private static final RaftAuthorization AUTHORIZATION =
            new RaftAuthorization(new SecurityConfig.Authorization(Set.of("User:broker"), false));

    @Test
    void theNodesPrincipalInSuperUsersMayVote() {
        ByteBuffer vote = frame(ApiKeys.VOTE, (short) 1, new VoteRequestData());
        assertThat(AUTHORIZATION.refusal(vote, as(Principal.user("broker")))).isNull();
        assertThat(vote.position())
                .as("the frame is left for the Raft transport")
                .isZero();
    }

    @Test
    void anyoneElseGetsClusterAuthorizationFailedInTheApisOwnResponse() {
        ResponseFrame refused = AUTHORIZATION.refusal(
                frame(ApiKeys.VOTE, (short) 1, new VoteRequestData()), as(Principal.user("alice")));
        assertThat(refused).isNotNull();
        ByteBuffer bytes =
                ((ResponseFrame.Bytes) refused.parts().get(0)).buffer().duplicate();
        bytes.getInt(); // size
        ClientFrames.Response response = ClientFrames.response(ApiKeys.VOTE, (short) 1, bytes.slice());
        assertThat(response.correlationId()).isEqualTo(42);
        VoteResponseData answer = (VoteResponseData) response.body();
        assertThat(answer.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(AUTHORIZATION.refusal(
                        frame(ApiKeys.DESCRIBE_QUORUM, (short) 1, new DescribeQuorumRequestData()),
                        new ConnectionInfo("CONTROLLER", PEER, 2)))
                .isNotNull();
    }

    @Test
    void theOperationsAreKafkasControllers() {
        assertThat(RaftAuthorization.operation(ApiKeys.VOTE)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.BEGIN_QUORUM_EPOCH)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.END_QUORUM_EPOCH)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.FETCH)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.FETCH_SNAPSHOT)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.UPDATE_RAFT_VOTER)).isEqualTo(AclOperation.CLUSTER_ACTION);
        assertThat(RaftAuthorization.operation(ApiKeys.ADD_RAFT_VOTER)).isEqualTo(AclOperation.ALTER);
        assertThat(RaftAuthorization.operation(ApiKeys.REMOVE_RAFT_VOTER)).isEqualTo(AclOperation.ALTER);
        assertThat(RaftAuthorization.operation(ApiKeys.DESCRIBE_QUORUM)).isEqualTo(AclOperation.DESCRIBE);
    }
}
