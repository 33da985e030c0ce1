package io.varve.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.ClientQuotasImage;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.Principal;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.junit.jupiter.api.Test;

class RequestQuotasTest {
    private final AtomicLong clockMs = new AtomicLong(1_000_000);

    private RequestQuotas quotas(Map<String, String> entity, String key, double value) {
        MetadataImage image = new MetadataImage(
                0,
                MetadataImage.EMPTY.features(),
                MetadataImage.EMPTY.topics(),
                MetadataImage.EMPTY.configs(),
                MetadataImage.EMPTY.cluster(),
                MetadataImage.EMPTY.producerIds(),
                MetadataImage.EMPTY.scram(),
                MetadataImage.EMPTY.acls(),
                new ClientQuotasImage(Map.of(entity, Map.of(key, value))));
        return new RequestQuotas(() -> image, 2, 1000, 1, clockMs::get);
    }

    private static RequestContext request(
            ApiKeys api, short version, org.apache.kafka.common.requests.AbstractRequest body) {
        return new RequestContext(
                new RequestHeaderData().setClientId("app").setCorrelationId(1),
                api,
                version,
                body,
                "PLAINTEXT",
                new InetSocketAddress("127.0.0.1", 5000),
                0,
                Principal.user("alice"));
    }

    private static int throttle(CompletableFuture<ApiMessage> response) {
        return io.varve.broker.protocol.ThrottleTimes.get(response.join());
    }

    @Test
    void produceBytesOverTheUsersQuotaEarnAThrottleAndStillReachTheHandler() {
        RequestQuotas quotas = quotas(Map.of("user", "alice"), "producer_byte_rate", 1000);
        int[] handled = {0};
        ApiHandler handler = r -> {
            handled[0]++;
            return CompletableFuture.completedFuture(new ProduceResponseData());
        };
        RequestContext produce = request(
                ApiKeys.PRODUCE,
                (short) 9,
                ProduceRequest.builder(new ProduceRequestData().setAcks((short) 1))
                        .build((short) 9));
        assertThat(throttle(quotas.handle(produce, handler, 1000)))
                .as("within the burst")
                .isZero();
        assertThat(throttle(quotas.handle(produce, handler, 1500))).isEqualTo(1500);
        assertThat(handled[0]).isEqualTo(2);
    }

    @Test
    void aFetchThatWouldGoOverTheConsumersQuotaIsAnsweredEmptyAndCappedBeforeThat() {
        RequestQuotas quotas = quotas(Map.of("client-id", "app"), "consumer_byte_rate", 1000);
        FetchRequestData data = new FetchRequestData().setMaxBytes(50_000_000).setReplicaId(-1);
        RequestContext fetch = request(ApiKeys.FETCH, (short) 12, new FetchRequest(data, (short) 12));
        FetchResponseData full = new FetchResponseData();
        full.responses()
                .add(new FetchResponseData.FetchableTopicResponse()
                        .setTopic("t")
                        .setPartitions(List.of(new FetchResponseData.PartitionData()
                                .setRecords(MemoryRecords.readableRecords(java.nio.ByteBuffer.allocate(800))))));
        ApiHandler handler = r -> CompletableFuture.completedFuture(full);

        FetchResponseData first =
                (FetchResponseData) quotas.handle(fetch, handler, 100).join();
        assertThat(data.maxBytes()).as("capped to one window's worth").isEqualTo(1000);
        assertThat(first.responses()).hasSize(1);
        assertThat(first.throttleTimeMs()).isZero();

        FetchResponseData second =
                (FetchResponseData) quotas.handle(fetch, handler, 100).join();
        assertThat(second.responses()).isEmpty();
        assertThat(second.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(second.throttleTimeMs()).isEqualTo(600);
        // the withheld bytes were not counted: after the throttle the next fetch is served
        clockMs.addAndGet(600);
        assertThat(((FetchResponseData) quotas.handle(fetch, handler, 100).join()).responses())
                .hasSize(1);
    }

    @Test
    void createTopicsOverTheMutationRateIsRefusedWithThrottlingQuotaExceeded() {
        RequestQuotas quotas = quotas(Map.of("client-id", "app"), "controller_mutation_rate", 1);
        int[] forwarded = {0};
        ApiHandler controller = r -> {
            forwarded[0]++;
            return CompletableFuture.completedFuture(new CreateTopicsResponseData());
        };
        CreateTopicsRequestData data = new CreateTopicsRequestData();
        data.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName("t")
                        .setNumPartitions(5)
                        .setReplicationFactor((short) 1));
        RequestContext create =
                request(ApiKeys.CREATE_TOPICS, (short) 7, new CreateTopicsRequest.Builder(data).build((short) 7));
        assertThat(throttle(quotas.handle(create, controller, 100)))
                .as("accepted: it was within")
                .isZero();
        CreateTopicsResponseData refused = (CreateTopicsResponseData)
                quotas.handle(create, controller, 100).join();
        assertThat(forwarded[0]).isEqualTo(1);
        assertThat(refused.topics().find("t").errorCode()).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        // four partitions over at one a second, capped at the samples' span (2 × 1 s)
        assertThat(refused.throttleTimeMs()).isEqualTo(2000);
    }

    @Test
    void clientsWithoutAQuotaAreNeverThrottled() {
        RequestQuotas quotas = quotas(Map.of("user", "bob"), "producer_byte_rate", 1);
        RequestContext produce = request(
                ApiKeys.PRODUCE,
                (short) 9,
                ProduceRequest.builder(new ProduceRequestData().setAcks((short) 1))
                        .build((short) 9));
        ApiHandler handler = r -> CompletableFuture.completedFuture(new ProduceResponseData());
        for (int i = 0; i < 10; i++) {
            assertThat(throttle(quotas.handle(produce, handler, 1_000_000))).isZero();
        }
    }
}
