package io.varve.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.controller.ControllerChannel;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.MetadataLoader;
import io.varve.metadata.controller.cluster.BrokerRegistrationRequest;
import io.varve.metadata.record.Endpoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The broker's side of registration, heartbeats and controlled shutdown, against a scripted controller. */
class BrokerLifecycleTest {
    private static final long HEARTBEAT_MS = 20;

    private final AtomicReference<Errors> registrationAnswer = new AtomicReference<>(Errors.NONE);
    private final AtomicInteger registrations = new AtomicInteger();
    private final AtomicInteger epochs = new AtomicInteger(100);
    private final List<BrokerHeartbeatRequestData> heartbeats = new CopyOnWriteArrayList<>();
    private final AtomicReference<Errors> heartbeatAnswer = new AtomicReference<>(Errors.NONE);
    /** The controlled-shutdown heartbeat (counting from 1) the controller answers with shouldShutDown. */
    private final AtomicInteger shutDownAtWantShutDown = new AtomicInteger(2);

    private final ControllerChannel controller = new ControllerChannel() {
        @Override
        public CompletableFuture<ApiMessage> forward(RequestContext request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<ApiMessage> send(ApiKeys api, ApiMessage request) {
            if (api == ApiKeys.BROKER_REGISTRATION) {
                registrations.incrementAndGet();
                Errors error = registrationAnswer.get();
                return CompletableFuture.completedFuture(new BrokerRegistrationResponseData()
                        .setErrorCode(error.code())
                        .setBrokerEpoch(error == Errors.NONE ? epochs.incrementAndGet() : -1));
            }
            BrokerHeartbeatRequestData beat = (BrokerHeartbeatRequestData) request;
            heartbeats.add(beat);
            long wantShutDowns = heartbeats.stream()
                    .filter(BrokerHeartbeatRequestData::wantShutDown)
                    .count();
            return CompletableFuture.completedFuture(new BrokerHeartbeatResponseData()
                    .setErrorCode(heartbeatAnswer.get().code())
                    .setIsCaughtUp(true)
                    .setIsFenced(false)
                    .setShouldShutDown(beat.wantShutDown() && wantShutDowns >= shutDownAtWantShutDown.get()));
        }
    };

    private BrokerLifecycle lifecycle;

    @AfterEach
    void close() {
        if (lifecycle != null) {
            lifecycle.close();
        }
    }

    private BrokerLifecycle lifecycle(long controlledShutdownTimeoutMs) {
        lifecycle = new BrokerLifecycle(
                new ControllerCalls(controller),
                new MetadataLoader(),
                new BrokerRegistrationRequest(
                        2,
                        "cluster",
                        Uuid.randomUuid(),
                        List.of(new Endpoint("PLAINTEXT", "localhost", 9092, "PLAINTEXT")),
                        null,
                        Map.of()),
                HEARTBEAT_MS,
                controlledShutdownTimeoutMs,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
        return lifecycle;
    }

    @Test
    void aRegistrationTheControllerRefusesStopsTheStartWithItsReason() {
        registrationAnswer.set(Errors.DUPLICATE_BROKER_REGISTRATION);

        assertThatThrownBy(() -> lifecycle(0).startInBackground(5_000))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("DUPLICATE_BROKER_REGISTRATION");
    }

    @Test
    void heartbeatsQuoteTheEpochAndTheAppliedMetadataOffsetAndTheAnswerUnfences() throws Exception {
        BrokerLifecycle broker = lifecycle(0);
        broker.startInBackground(5_000);

        await().atMost(Duration.ofSeconds(10)).until(() -> heartbeats.size() >= 3);
        assertThat(heartbeats).allSatisfy(h -> {
            assertThat(h.brokerId()).isEqualTo(2);
            assertThat(h.brokerEpoch()).isEqualTo(101);
            assertThat(h.currentMetadataOffset())
                    .isEqualTo(new MetadataLoader().image().offset());
            assertThat(h.wantShutDown()).isFalse();
        });
        assertThat(broker.fenced()).isFalse();
    }

    @Test
    void aHeartbeatAnsweredStaleBrokerEpochRegistersAgainAndQuotesTheNewEpoch() throws Exception {
        lifecycle(0).startInBackground(5_000);
        heartbeatAnswer.set(Errors.STALE_BROKER_EPOCH);
        await().atMost(Duration.ofSeconds(10)).until(() -> registrations.get() >= 2);
        heartbeatAnswer.set(Errors.NONE);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> heartbeats.get(heartbeats.size() - 1).brokerEpoch() > 101);
    }

    @Test
    void closeAsksForControlledShutdownUntilTheControllerSaysShouldShutDown() throws Exception {
        lifecycle(10_000).startInBackground(5_000);

        lifecycle.close();

        List<BrokerHeartbeatRequestData> shutdowns = heartbeats.stream()
                .filter(BrokerHeartbeatRequestData::wantShutDown)
                .toList();
        assertThat(shutdowns).hasSize(2);
        assertThat(heartbeats.get(heartbeats.size() - 1).wantShutDown()).isTrue();
    }

    @Test
    void controlledShutdownIsBoundedWhenTheControllerNeverLetsTheBrokerGo() throws Exception {
        shutDownAtWantShutDown.set(Integer.MAX_VALUE);
        lifecycle(300).startInBackground(5_000);
        long startNanos = System.nanoTime();

        lifecycle.close();

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos))
                .isLessThan(5_000);
        assertThat(heartbeats.stream().filter(BrokerHeartbeatRequestData::wantShutDown))
                .isNotEmpty();
    }

    @Test
    void aLoneNodeClosesWithoutControlledShutdown() throws Exception {
        lifecycle(0).startInBackground(5_000);

        lifecycle.close();

        assertThat(heartbeats).noneMatch(BrokerHeartbeatRequestData::wantShutDown);
    }
}
