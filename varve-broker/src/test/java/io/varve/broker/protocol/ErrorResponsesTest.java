package io.varve.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.junit.jupiter.api.Test;

class ErrorResponsesTest {

    @Test
    void describeUserScramCredentialsForEveryUserGetsItsErrorInsteadOfAClosedConnection() {
        // found by RequestDecodingFuzzTest: a null user list ("every user") made kafka-clients' error response throw
        DescribeUserScramCredentialsRequest request = new DescribeUserScramCredentialsRequest.Builder(
                        new DescribeUserScramCredentialsRequestData().setUsers(null))
                .build((short) 0);

        DescribeUserScramCredentialsResponseData response = (DescribeUserScramCredentialsResponseData)
                ErrorResponses.of(request, new ClusterAuthorizationException("Not authorized: describe"));

        assertThat(response.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(response.errorMessage()).isEqualTo("Not authorized: describe");
        assertThat(response.results()).isEmpty();
        assertThat(ResponseWriter.write(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, (short) 0, 7, response)
                        .parts())
                .isNotEmpty();
    }

    @Test
    void otherRequestsGetKafkaClientsErrorResponseWithTheErrorOnEveryEntry() {
        CreateTopicsRequestData data = new CreateTopicsRequestData();
        data.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("orders"));
        CreateTopicsRequest request = new CreateTopicsRequest.Builder(data).build((short) 7);

        CreateTopicsResponseData response =
                (CreateTopicsResponseData) ErrorResponses.of(request, new ClusterAuthorizationException("no"));

        assertThat(response.topics().find("orders").errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
    }
}
