package io.varve.metadata.controller.cluster;

import static io.varve.metadata.controller.ClusterFixture.apply;
import static io.varve.metadata.controller.ClusterFixture.cluster;
import static io.varve.metadata.controller.ClusterFixture.epochOf;
import static io.varve.metadata.controller.ClusterFixture.ids;
import static io.varve.metadata.controller.ClusterFixture.partitionOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.controller.replication.ReplicationControl;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClusterControlTest {

    private static final long TIMEOUT_MS = 9_000;

    private final ClusterControl control =
            new ClusterControl("c1", new BrokerHeartbeats(TIMEOUT_MS), new ReplicationControl());

    private static BrokerRegistrationRequest request(int id, Uuid incarnation) {
        return new BrokerRegistrationRequest(
                id,
                "c1",
                incarnation,
                List.of(new Endpoint("PLAINTEXT", "b" + id, 9092, "PLAINTEXT")),
                "rack-" + id,
                SupportedFeatures.THIS_BUILD);
    }

    private ControllerResult<BrokerHeartbeatReply> beat(MetadataImage image, int id, long offset, long nowMs) {
        return control.heartbeat(image, BrokerHeartbeatRequest.of(id, epochOf(id), offset), nowMs);
    }

    private ControllerResult<BrokerHeartbeatReply> wantShutDown(MetadataImage image, int id, long nowMs) {
        return control.heartbeat(image, new BrokerHeartbeatRequest(id, epochOf(id), 1_000, false, true), nowMs);
    }

    /** Registers then heartbeats broker ids into the heartbeat bookkeeping at time 0 (as if they just joined). */
    private void heardFrom(MetadataImage image, int... ids) {
        for (int id : ids) {
            beat(image, id, image.offset(), 0);
        }
    }

    // Registration

    @Test
    void aNewBrokerRegistersFencedWithAnEpochAboveTheLogAndEveryEarlierEpoch() {
        MetadataImage image = cluster().unfenced(1).image();

        ControllerResult<BrokerRegistrationReply> result = control.register(image, request(2, Uuid.randomUuid()), 0);

        assertThat(result.response().error()).isEqualTo(Errors.NONE);
        assertThat(result.response().brokerEpoch()).isGreaterThan(Math.max(image.offset(), epochOf(1)));
        RegisterBrokerRecord record = (RegisterBrokerRecord) result.records().get(0);
        assertThat(record.fenced()).isTrue();
        assertThat(record.rack()).isEqualTo("rack-2");
        assertThat(record.supportedFeatures()).isEqualTo(SupportedFeatures.THIS_BUILD);
    }

    @Test
    void aRegistrationFromAnotherClusterIsInconsistentClusterId() {
        BrokerRegistrationRequest other = new BrokerRegistrationRequest(
                2, "c2", Uuid.randomUuid(), request(2, Uuid.ONE_UUID).listeners(), null, Map.of());

        ControllerResult<BrokerRegistrationReply> result = control.register(MetadataImage.EMPTY, other, 0);

        assertThat(result.response().error()).isEqualTo(Errors.INCONSISTENT_CLUSTER_ID);
        assertThat(result.response().message()).isEqualTo("Expected cluster ID c1, but got cluster ID c2");
        assertThat(result.records()).isEmpty();
    }

    @Test
    void aBrokerThatDoesNotSupportAFinalizedLevelIsUnsupportedVersion() {
        MetadataImage image = cluster()
                .record(new FeatureLevelRecord("group.version", (short) 1))
                .image();
        BrokerRegistrationRequest old = new BrokerRegistrationRequest(
                2,
                "c1",
                Uuid.randomUuid(),
                request(2, Uuid.ONE_UUID).listeners(),
                null,
                Map.of("group.version", VersionRange.of(0, 0)));

        ControllerResult<BrokerRegistrationReply> result = control.register(image, old, 0);

        assertThat(result.response().error()).isEqualTo(Errors.UNSUPPORTED_VERSION);
        assertThat(result.response().message()).contains("finalized version 1 of group.version");
    }

    @Test
    void aSecondLiveIncarnationOfABrokerIsADuplicateRegistrationUntilTheFirstSessionRunsOut() {
        MetadataImage image = cluster().unfenced(1).image();
        heardFrom(image, 1);

        ControllerResult<BrokerRegistrationReply> during =
                control.register(image, request(1, Uuid.randomUuid()), TIMEOUT_MS);
        ControllerResult<BrokerRegistrationReply> after =
                control.register(image, request(1, Uuid.randomUuid()), TIMEOUT_MS + 1);

        assertThat(during.response().error()).isEqualTo(Errors.DUPLICATE_BROKER_REGISTRATION);
        assertThat(during.records()).isEmpty();
        assertThat(after.response().error()).isEqualTo(Errors.NONE);
    }

    @Test
    void aControllerThatForgotItsSessionsOnLosingLeadershipGivesEveryBrokerAFreshSessionWhenItLeadsAgain() {
        MetadataImage image = cluster().unfenced(1).image();
        heardFrom(image, 1);
        control.heartbeats().forgetAll(); // a standby for a while: it heard no heartbeats

        long takeOverMs = 10 * TIMEOUT_MS;
        ControllerResult<List<Integer>> atTakeOver = control.fenceExpiredBrokers(image, takeOverMs);
        ControllerResult<List<Integer>> sessionLater = control.fenceExpiredBrokers(image, takeOverMs + TIMEOUT_MS + 1);

        assertThat(atTakeOver.response()).isEmpty();
        assertThat(sessionLater.response()).containsExactly(1);
    }

    @Test
    void aBrokerKnownOnlyFromTheLogIsReplacedAtOnceByANewIncarnation() {
        MetadataImage image = cluster().unfenced(1).partition(ids(1), ids(1), 1).image();

        ControllerResult<BrokerRegistrationReply> result = control.register(image, request(1, Uuid.randomUuid()), 5);
        MetadataImage after = apply(image, result.records());

        assertThat(result.response().error()).isEqualTo(Errors.NONE);
        assertThat(after.cluster().broker(1).fenced()).isTrue();
        assertThat(partitionOf(after, 0).leader())
                .as("a fenced incarnation leads nothing")
                .isEqualTo(-1);
    }

    @Test
    void aRetryOfTheSameRegistrationWritesNothingAndAnswersTheSameEpoch() {
        Uuid incarnation = Uuid.randomUuid();
        ControllerResult<BrokerRegistrationReply> first =
                control.register(MetadataImage.EMPTY, request(1, incarnation), 0);
        MetadataImage image = apply(MetadataImage.EMPTY, first.records());

        ControllerResult<BrokerRegistrationReply> retry = control.register(image, request(1, incarnation), 1);

        assertThat(retry.records()).isEmpty();
        assertThat(retry.response().brokerEpoch()).isEqualTo(first.response().brokerEpoch());
    }

    // Heartbeats

    @Test
    void aBrokerStaysFencedUntilItsMetadataOffsetReachesTheCommittedOffsetAtRegistration() {
        MetadataImage before =
                cluster().unfenced(2).partition(ids(1, 2), ids(2), 2).image();
        ControllerResult<BrokerRegistrationReply> registered =
                control.register(before, request(1, Uuid.randomUuid()), 0);
        MetadataImage image = apply(before, registered.records());
        long epoch = registered.response().brokerEpoch();

        ControllerResult<BrokerHeartbeatReply> behind =
                control.heartbeat(image, BrokerHeartbeatRequest.of(1, epoch, before.offset() - 1), 10);
        ControllerResult<BrokerHeartbeatReply> caughtUp =
                control.heartbeat(image, BrokerHeartbeatRequest.of(1, epoch, before.offset()), 20);

        assertThat(behind.response().isFenced()).isTrue();
        assertThat(behind.response().isCaughtUp()).isFalse();
        assertThat(behind.records()).isEmpty();
        assertThat(caughtUp.response().isFenced()).isFalse();
        assertThat(caughtUp.response().isCaughtUp()).isTrue();
        assertThat(caughtUp.records()).containsExactly(BrokerRegistrationChangeRecord.unfence(1, epoch));
        assertThat(apply(image, caughtUp.records()).cluster().isActive(1)).isTrue();
    }

    @Test
    void unfencingElectsLeadersOfOfflinePartitionsInWhoseIsrTheBrokerIs() {
        MetadataImage image =
                cluster().fenced(1).unfenced(2).partition(ids(1, 2), ids(1), -1).image();
        heardFrom(image, 1);

        MetadataImage after = apply(image, beat(image, 1, image.offset(), 1).records());

        assertThat(partitionOf(after, 0).leader()).isEqualTo(1);
    }

    @Test
    void heartbeatsQuotingAnotherEpochOrFromAnUnknownBrokerAreStaleBrokerEpoch() {
        MetadataImage image = cluster().unfenced(1).image();

        assertThat(control.heartbeat(image, BrokerHeartbeatRequest.of(1, 3, 0), 0)
                        .response()
                        .error())
                .isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(control.heartbeat(image, BrokerHeartbeatRequest.of(9, 3, 0), 0)
                        .response()
                        .error())
                .isEqualTo(Errors.STALE_BROKER_EPOCH);
    }

    @Test
    void aBrokerWithoutHeartbeatsForTheSessionTimeoutIsFencedAndItsLeadershipsMove() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .partition(ids(2, 1), ids(2, 1), 2)
                .image();
        heardFrom(image, 1, 2, 3);
        beat(image, 2, image.offset(), 5_000);
        beat(image, 3, image.offset(), 5_000);

        ControllerResult<List<Integer>> early = control.fenceExpiredBrokers(image, TIMEOUT_MS);
        ControllerResult<List<Integer>> late = control.fenceExpiredBrokers(image, TIMEOUT_MS + 1);
        MetadataImage after = apply(image, late.records());

        assertThat(early.response()).isEmpty();
        assertThat(early.records()).isEmpty();
        assertThat(late.response()).containsExactly(1);
        assertThat(after.cluster().broker(1).fenced()).isTrue();
        assertThat(partitionOf(after, 0).leader()).isEqualTo(2);
        assertThat(partitionOf(after, 0).isr()).containsExactly(2, 3);
        assertThat(partitionOf(after, 1).leader()).isEqualTo(2);
        assertThat(partitionOf(after, 1).isr()).containsExactly(2);
    }

    @Test
    void brokersFencedTogetherNeverElectEachOther() {
        MetadataImage image = cluster()
                .unfenced(1, 2, 3)
                .partition(ids(1, 2, 3), ids(1, 2, 3), 1)
                .image();
        heardFrom(image, 1, 2);
        beat(image, 3, image.offset(), 9_500);

        MetadataImage after =
                apply(image, control.fenceExpiredBrokers(image, TIMEOUT_MS + 1).records());

        assertThat(partitionOf(after, 0).leader()).isEqualTo(3);
        assertThat(partitionOf(after, 0).isr()).containsExactly(3);
    }

    @Test
    void aNewControllerGivesBrokersItNeverHeardFromAFullSessionBeforeFencingThem() {
        MetadataImage image = cluster().unfenced(1).image();

        assertThat(control.fenceExpiredBrokers(image, 50_000).response()).isEmpty();
        assertThat(control.fenceExpiredBrokers(image, 50_000 + TIMEOUT_MS).response())
                .isEmpty();
        assertThat(control.fenceExpiredBrokers(image, 50_001 + TIMEOUT_MS).response())
                .containsExactly(1);
    }

    @Test
    void controlledShutdownMovesLeadershipsThenAnswersShouldShutDownOnceTheBrokerLeadsNothing() {
        MetadataImage image = cluster()
                .unfenced(1, 2)
                .partition(ids(1, 2), ids(1, 2), 1)
                .partition(ids(1, 2), ids(1), 1)
                .image();
        heardFrom(image, 1, 2);

        ControllerResult<BrokerHeartbeatReply> first = wantShutDown(image, 1, 100);
        MetadataImage moving = apply(image, first.records());
        ControllerResult<BrokerHeartbeatReply> second = wantShutDown(moving, 1, 200);
        MetadataImage done = apply(moving, second.records());

        assertThat(first.response().shouldShutDown()).isFalse();
        assertThat(moving.cluster().broker(1).inControlledShutdown()).isTrue();
        assertThat(partitionOf(moving, 0).leader()).isEqualTo(2);
        assertThat(partitionOf(moving, 0).isr()).containsExactly(2);
        assertThat(partitionOf(moving, 1).leader())
                .as("no other ISR member: offline")
                .isEqualTo(-1);
        assertThat(second.response().shouldShutDown()).isTrue();
        assertThat(second.response().isFenced()).isTrue();
        assertThat(done.cluster().broker(1).fenced()).isTrue();
    }

    @Test
    void aBrokerWithNothingToMoveOrAlreadyFencedMayShutDownAtOnce() {
        MetadataImage image =
                cluster().unfenced(1).fenced(2).partition(ids(1), ids(1), 1).image();
        heardFrom(image, 1, 2);
        MetadataImage idle = cluster().unfenced(3).image();
        heardFrom(idle, 3);

        ControllerResult<BrokerHeartbeatReply> fenced = wantShutDown(image, 2, 1);
        ControllerResult<BrokerHeartbeatReply> nothingLed = wantShutDown(idle, 3, 1);

        assertThat(fenced.response().shouldShutDown()).isTrue();
        assertThat(fenced.records()).isEmpty();
        assertThat(nothingLed.response().shouldShutDown()).isTrue();
        assertThat(nothingLed.records()).containsExactly(BrokerRegistrationChangeRecord.fence(3, epochOf(3)));
    }

    @Test
    void wantFenceFencesAnUnfencedBrokerAndMovesItsLeaderships() {
        MetadataImage image =
                cluster().unfenced(1, 2).partition(ids(1, 2), ids(1, 2), 1).image();
        heardFrom(image, 1, 2);

        ControllerResult<BrokerHeartbeatReply> result =
                control.heartbeat(image, new BrokerHeartbeatRequest(1, epochOf(1), 0, true, false), 1);
        MetadataImage after = apply(image, result.records());

        assertThat(result.response().isFenced()).isTrue();
        assertThat(after.cluster().broker(1).fenced()).isTrue();
        assertThat(partitionOf(after, 0).leader()).isEqualTo(2);
    }

    // Unregistration

    @Test
    void unregisteringMovesLeadershipsAndRemovesTheBrokerAndAnUnknownOneIsNotRegistered() {
        MetadataImage image =
                cluster().unfenced(1, 2).partition(ids(1, 2), ids(1, 2), 1).image();

        ControllerResult<ErrorReply> result = control.unregister(image, 1);
        MetadataImage after = apply(image, result.records());

        assertThat(result.response()).isEqualTo(ErrorReply.NONE);
        assertThat(after.cluster().broker(1)).isNull();
        assertThat(partitionOf(after, 0).leader()).isEqualTo(2);
        assertThat(control.unregister(after, 1).response().error()).isEqualTo(Errors.BROKER_ID_NOT_REGISTERED);
    }
}
