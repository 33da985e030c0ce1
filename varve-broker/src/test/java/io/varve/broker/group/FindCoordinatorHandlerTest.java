package io.varve.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** FindCoordinator's key type SHARE (KIP-932): brokers locate the share coordinator of a share-partition. */
class FindCoordinatorHandlerTest {
    private static final short VERSION = 6;
    private static final byte SHARE = 2;

    @Test
    void aShareKeyIsAnsweredWithItsShareCoordinatorAndAMalformedOneIsAnInvalidRequest() throws Exception {
        MetadataCache cache = new MetadataCache(1, "cluster");
        cache.update(new MetadataSnapshot(
                1,
                Map.of(),
                Map.of(),
                List.of(new MetadataSnapshot.BrokerInfo(
                        3, null, List.of(new MetadataSnapshot.Endpoint("INTERNAL", "127.0.0.3", 9093)))),
                Map.of(),
                Map.of()));
        List<String> asked = new ArrayList<>();
        FindCoordinatorHandler.Coordinators shares = new FindCoordinatorHandler.Coordinators() {
            @Override
            public CompletableFuture<Void> ensureTopic() {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public int coordinatorNode(String key) {
                asked.add(key);
                return 3;
            }
        };
        FindCoordinatorHandler handler = new FindCoordinatorHandler(null, cache, null, shares);
        String good = "my:group:" + Uuid.randomUuid() + ":4";
        FindCoordinatorRequestData request = new FindCoordinatorRequestData()
                .setKeyType(SHARE)
                .setCoordinatorKeys(List.of(good, "group-without-partition", "g:not-a-uuid:0"));
        RequestContext context = new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(ApiKeys.FIND_COORDINATOR.id)
                        .setRequestApiVersion(VERSION)
                        .setClientId("broker-2"),
                ApiKeys.FIND_COORDINATOR,
                VERSION,
                ClientFrames.asRequest(ApiKeys.FIND_COORDINATOR, VERSION, request),
                "INTERNAL",
                new InetSocketAddress("127.0.0.2", 5000),
                0);
        FindCoordinatorResponseData answer =
                (FindCoordinatorResponseData) handler.handle(context).get(5, TimeUnit.SECONDS);
        assertThat(answer.coordinators().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(answer.coordinators().get(0).nodeId()).isEqualTo(3);
        assertThat(answer.coordinators().get(0).port()).isEqualTo(9093);
        assertThat(answer.coordinators().get(1).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(answer.coordinators().get(2).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(asked).containsExactly(good);
    }
}
