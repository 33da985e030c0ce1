package io.varve.it.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.RawClient;
import io.varve.it.SharedBroker;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * StreamsGroupTopologyDescriptionUpdate (KIP-1331, key 93): advertised v0 as Kafka 4.4 does, and answered as Kafka 4.4
 * answers it without a topology description plugin (its default): UNSUPPORTED_VERSION, naming the missing plugin.
 */
class TopologyDescriptionUpdateIT {
    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    @Test
    void aTopologyPushIsAdvertisedAndRefusedAsKafkaRefusesItWithoutAPlugin() throws Exception {
        try (RawClient c = new RawClient(shared.broker().port())) {
            ApiVersionsResponseData versions = c.send(new ApiVersionsRequestData(), (short) 3);
            ApiVersionsResponseData.ApiVersion api =
                    versions.apiKeys().find(ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE.id);
            assertThat(api).isNotNull();
            assertThat(api.minVersion()).isZero();
            assertThat(api.maxVersion()).isZero();

            StreamsGroupTopologyDescriptionUpdateResponseData r = c.send(
                    new StreamsGroupTopologyDescriptionUpdateRequestData()
                            .setGroupId("app")
                            .setMemberId("m1")
                            .setTopologyEpoch(0)
                            .setTopologyDescription(
                                    new StreamsGroupTopologyDescriptionUpdateRequestData.TopologyDescription()),
                    (short) 0);
            assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.UNSUPPORTED_VERSION);
            assertThat(r.errorMessage())
                    .isEqualTo("The broker has no streams group topology description plugin configured.");
        }
    }
}
