package io.varve.it;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.WireRequests.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Connection-level behaviour: pipelined requests, response order, idle connections, ApiVersions negotiation. */
class NetworkIT {
    private static final long MAX_IDLE_MS = 1000;

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker(Map.of("connections.max.idle.ms", Long.toString(MAX_IDLE_MS)));

    @Test
    void pipelinedRequestsOfDifferentApisAreAnsweredInRequestOrderEvenWhenTheFirstWaits() throws Exception {
        String topic = uniqueTopic("pipelined");
        createTopic(shared.admin(), topic, 1);
        try (RawClient client = new RawClient(shared.broker().port())) {
            List<Integer> sent = new ArrayList<>();
            // A fetch that long-polls for 500 ms on an empty partition, then quick requests behind it.
            sent.add(client.sendOnly(WireRequests.fetch(topic, 0, 0, 500), WireRequests.FETCH_VERSION));
            for (int i = 1; i < 20; i++) {
                switch (i % 3) {
                    case 0 -> sent.add(client.sendOnly(WireRequests.apiVersions(), WireRequests.API_VERSIONS_VERSION));
                    case 1 ->
                        sent.add(client.sendOnly(
                                new MetadataRequestData()
                                        .setTopics(
                                                List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic))),
                                (short) 12));
                    default ->
                        sent.add(client.sendOnly(
                                WireRequests.listOffsets(topic, 0, WireRequests.LATEST_TIMESTAMP),
                                WireRequests.LIST_OFFSETS_VERSION));
                }
            }
            List<Integer> answered = new ArrayList<>();
            for (int i = 0; i < sent.size(); i++) {
                answered.add(RawClient.correlationIdOf(client.readFrame()));
            }
            assertThat(answered).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void pipelinedProduceRequestsOnOneConnectionAreAppendedInRequestOrder() throws Exception {
        String topic = uniqueTopic("pipelined-produce");
        createTopic(shared.admin(), topic, 1);
        int requests = 40;
        try (RawClient client = new RawClient(shared.broker().port())) {
            List<Integer> correlationIds = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                correlationIds.add(client.sendOnly(
                        WireRequests.produce(
                                topic,
                                0,
                                (short) -1,
                                MemoryRecords.withRecords(Compression.NONE, record("k", Integer.toString(i)))),
                        WireRequests.PRODUCE_VERSION));
            }
            List<Long> baseOffsets = new ArrayList<>();
            for (int id : correlationIds) {
                ProduceResponseData response = client.receive(ApiKeys.PRODUCE, WireRequests.PRODUCE_VERSION, id);
                ProduceResponseData.PartitionProduceResponse p = response.responses()
                        .iterator()
                        .next()
                        .partitionResponses()
                        .get(0);
                assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.NONE);
                baseOffsets.add(p.baseOffset());
            }
            // Kafka handles one request per connection at a time, so a client's pipelined writes keep their order.
            List<Long> expected = new ArrayList<>();
            for (long i = 0; i < requests; i++) {
                expected.add(i);
            }
            assertThat(baseOffsets).containsExactlyElementsOf(expected);
        }
    }

    @ParameterizedTest(name = "ApiVersions v{0}")
    @ValueSource(shorts = {0, 1, 2, 3, 4})
    void everyApiVersionsVersionIsAnsweredWithTheBrokersApis(short version) throws Exception {
        ApiVersionsRequestData request = version >= 3 ? WireRequests.apiVersions() : new ApiVersionsRequestData();
        try (RawClient client = new RawClient(shared.broker().port())) {
            ApiVersionsResponseData response = client.send(request, version);
            assertThat(Errors.forCode(response.errorCode())).isEqualTo(Errors.NONE);
            for (ApiKeys key : List.of(
                    ApiKeys.API_VERSIONS,
                    ApiKeys.PRODUCE,
                    ApiKeys.FETCH,
                    ApiKeys.METADATA,
                    ApiKeys.LIST_OFFSETS,
                    ApiKeys.CREATE_TOPICS,
                    ApiKeys.DELETE_TOPICS,
                    ApiKeys.INIT_PRODUCER_ID)) {
                ApiVersionsResponseData.ApiVersion range = response.apiKeys().find(key.id);
                assertThat(range).as("%s advertised", key).isNotNull();
                assertThat(range.minVersion()).as("%s min version", key).isLessThanOrEqualTo(range.maxVersion());
                assertThat(range.maxVersion()).as("%s max version", key).isLessThanOrEqualTo(key.latestVersion(true));
            }
            assertThat(response.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
                    .isGreaterThanOrEqualTo((short) 4);
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterConnectionsMaxIdleMs() throws Exception {
        try (RawClient client = new RawClient(shared.broker().port())) {
            client.send(WireRequests.apiVersions(), WireRequests.API_VERSIONS_VERSION);
            long lastActivityNanos = System.nanoTime();
            await().atMost(Duration.ofSeconds(15))
                    .pollDelay(Duration.ZERO)
                    .pollInSameThread()
                    .until(() -> client.isClosedByPeer(Duration.ofMillis(250)));
            long idleMs = (System.nanoTime() - lastActivityNanos) / 1_000_000;
            assertThat(idleMs)
                    .as("ms idle before the broker closed the connection")
                    .isGreaterThanOrEqualTo(MAX_IDLE_MS / 2);
        }
    }

    @Test
    void aConnectionInUseIsNotClosedAsIdle() throws Exception {
        try (RawClient client = new RawClient(shared.broker().port())) {
            // A request every 200 ms for three times connections.max.idle.ms.
            await().during(Duration.ofMillis(3 * MAX_IDLE_MS))
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(200))
                    .pollInSameThread()
                    .until(() -> {
                        ApiVersionsResponseData r =
                                client.send(WireRequests.apiVersions(), WireRequests.API_VERSIONS_VERSION);
                        return r.errorCode() == Errors.NONE.code();
                    });
        }
    }
}
