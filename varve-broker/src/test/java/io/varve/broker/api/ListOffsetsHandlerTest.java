package io.varve.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ListOffsetsHandlerTest {

    @Test
    void eachSentinelTimestampHasTheFirstVersionKafkaGivesItAndOtherNegativesHaveNone() {
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.LATEST)).isEqualTo((short) 1);
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.EARLIEST))
                .isEqualTo((short) 1);
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.MAX_TIMESTAMP))
                .isEqualTo((short) 7);
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.EARLIEST_LOCAL))
                .isEqualTo((short) 8);
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.LATEST_TIERED))
                .isEqualTo((short) 9);
        assertThat(ListOffsetsHandler.firstVersionOf(ListOffsetsHandler.EARLIEST_PENDING_UPLOAD))
                .isEqualTo((short) 11);
        assertThat(ListOffsetsHandler.firstVersionOf(-7)).isEqualTo((short) -1);
    }
}
