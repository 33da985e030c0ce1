package io.varve.metadata.controller.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RemoveDelegationTokenRecord;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class DelegationTokenControlTest {
    private static final long HOUR_MS = 3_600_000L;
    private final AtomicInteger ids = new AtomicInteger();
    private final DelegationTokenControl control = new DelegationTokenControl(
            new DelegationTokenControl.Settings(10 * HOUR_MS, 2 * HOUR_MS), () -> "token-" + ids.incrementAndGet());

    private static MetadataImage replay(MetadataImage image, List<MetadataRecord> records) {
        MetadataDelta delta = new MetadataDelta(image);
        records.forEach(delta::replay);
        return delta.apply(image.offset() + records.size());
    }

    private MetadataImage withToken(long nowMs) {
        ControllerResult<DelegationTokenControl.Created> created =
                control.create(MetadataImage.EMPTY, "User:alice", "User:admin", List.of("User:bob"), -1, nowMs);
        return replay(MetadataImage.EMPTY, created.records());
    }

    @Test
    void aTokenExpiresAfterTheExpiryTimeAndNeverOutlivesItsMaximumLifetime() {
        ControllerResult<DelegationTokenControl.Created> created =
                control.create(MetadataImage.EMPTY, "User:alice", "User:alice", List.of(), -1, 1_000);
        DelegationTokenRecord token = created.response().token();
        assertThat(token.issueTimestampMs()).isEqualTo(1_000);
        assertThat(token.maxTimestampMs()).isEqualTo(1_000 + 10 * HOUR_MS);
        assertThat(token.expiryTimestampMs()).isEqualTo(1_000 + 2 * HOUR_MS);
        // a requested lifetime shorter than the expiry time caps the expiry; a longer one than the maximum is cut
        DelegationTokenRecord shortLived = control.create(
                        MetadataImage.EMPTY, "User:alice", "User:alice", List.of(), HOUR_MS, 0)
                .response()
                .token();
        assertThat(shortLived.expiryTimestampMs()).isEqualTo(HOUR_MS);
        assertThat(shortLived.maxTimestampMs()).isEqualTo(HOUR_MS);
        DelegationTokenRecord capped = control.create(
                        MetadataImage.EMPTY, "User:alice", "User:alice", List.of(), 100 * HOUR_MS, 0)
                .response()
                .token();
        assertThat(capped.maxTimestampMs()).isEqualTo(10 * HOUR_MS);
    }

    @Test
    void theOwnerAndRenewersMayRenewTheRequesterAndOthersGetOwnerMismatch() {
        MetadataImage image = withToken(0);
        for (String principal : List.of("User:alice", "User:bob")) {
            ControllerResult<DelegationTokenControl.Expiry> renewed =
                    control.renew(image, "token-1", principal, HOUR_MS, HOUR_MS);
            assertThat(renewed.response().error().error()).isEqualTo(Errors.NONE);
            assertThat(renewed.response().expiryTimestampMs()).isEqualTo(2 * HOUR_MS);
        }
        for (String principal : List.of("User:admin", "User:mallory")) {
            ControllerResult<DelegationTokenControl.Expiry> refused =
                    control.renew(image, "token-1", principal, HOUR_MS, HOUR_MS);
            assertThat(refused.response().error().error()).isEqualTo(Errors.DELEGATION_TOKEN_OWNER_MISMATCH);
            assertThat(refused.records()).isEmpty();
        }
        assertThat(control.renew(image, "nope", "User:alice", HOUR_MS, HOUR_MS)
                        .response()
                        .error()
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND);
    }

    @Test
    void aRenewalIsAtMostTheExpiryTimeNeverPastTheMaximumAndTheDefaultPeriodIsTheExpiryTime() {
        MetadataImage image = withToken(0);
        assertThat(control.renew(image, "token-1", "User:alice", 100 * HOUR_MS, HOUR_MS)
                        .response()
                        .expiryTimestampMs())
                .isEqualTo(3 * HOUR_MS);
        assertThat(control.renew(image, "token-1", "User:alice", 0, 9 * HOUR_MS)
                        .response()
                        .error()
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
        MetadataImage late = replay(
                image,
                control.renew(image, "token-1", "User:alice", -1, HOUR_MS).records());
        late = replay(
                late,
                control.renew(late, "token-1", "User:alice", -1, 3 * HOUR_MS - 1)
                        .records());
        late = replay(
                late,
                control.renew(late, "token-1", "User:alice", -1, 5 * HOUR_MS - 2)
                        .records());
        late = replay(
                late,
                control.renew(late, "token-1", "User:alice", -1, 7 * HOUR_MS - 3)
                        .records());
        assertThat(control.renew(late, "token-1", "User:alice", -1, 9 * HOUR_MS - 4)
                        .response()
                        .expiryTimestampMs())
                .isEqualTo(10 * HOUR_MS);
        ControllerResult<DelegationTokenControl.Expiry> byDefault =
                control.renew(image, "token-1", "User:alice", -1, HOUR_MS);
        assertThat(byDefault.response().expiryTimestampMs()).isEqualTo(3 * HOUR_MS);
        MetadataImage renewed = replay(image, byDefault.records());
        assertThat(renewed.delegationTokens().token("token-1").orElseThrow().expiryTimestampMs())
                .isEqualTo(3 * HOUR_MS);
    }

    @Test
    void anExpiredTokenCanNeitherBeRenewedNorExpiredAndIsRemovedByTheCheck() {
        MetadataImage image = withToken(0);
        long later = 2 * HOUR_MS + 1;
        assertThat(control.renew(image, "token-1", "User:alice", -1, later)
                        .response()
                        .error()
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
        assertThat(control.expire(image, "token-1", "User:alice", -1, later)
                        .response()
                        .error()
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
        // expiry is checked before the principal, as in Kafka
        assertThat(control.renew(image, "token-1", "User:mallory", -1, later)
                        .response()
                        .error()
                        .error())
                .isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
        assertThat(control.removeExpired(image, 2 * HOUR_MS).records()).isEmpty();
        ControllerResult<Integer> removed = control.removeExpired(image, later);
        assertThat(removed.response()).isEqualTo(1);
        assertThat(removed.records()).containsExactly(new RemoveDelegationTokenRecord("token-1"));
        assertThat(replay(image, removed.records()).delegationTokens().tokens()).isEmpty();
    }

    @Test
    void expiringWithANegativePeriodRemovesTheTokenAndAPositiveOneBringsTheExpiryForward() {
        MetadataImage image = withToken(0);
        ControllerResult<DelegationTokenControl.Expiry> now = control.expire(image, "token-1", "User:bob", -1, HOUR_MS);
        assertThat(now.records()).containsExactly(new RemoveDelegationTokenRecord("token-1"));
        assertThat(now.response().expiryTimestampMs()).isEqualTo(-1);
        ControllerResult<DelegationTokenControl.Expiry> soon =
                control.expire(image, "token-1", "User:alice", 60_000, HOUR_MS);
        assertThat(soon.response().expiryTimestampMs()).isEqualTo(HOUR_MS + 60_000);
        assertThat(replay(image, soon.records())
                        .delegationTokens()
                        .token("token-1")
                        .orElseThrow()
                        .expiryTimestampMs())
                .isEqualTo(HOUR_MS + 60_000);
    }

    @Test
    void tokensSurviveASnapshotAndAnImageDiff() {
        MetadataImage image = withToken(0);
        MetadataImage renewed = replay(
                image,
                control.renew(image, "token-1", "User:alice", HOUR_MS, HOUR_MS).records());
        assertThat(replay(MetadataImage.EMPTY, renewed.toRecords()).delegationTokens())
                .isEqualTo(renewed.delegationTokens());
        assertThat(MetadataImageDiff.between(image, renewed).apply(renewed.offset()))
                .isEqualTo(renewed);
        MetadataImage removed = replay(renewed, List.of(new RemoveDelegationTokenRecord("token-1")));
        assertThat(MetadataImageDiff.between(renewed, removed).apply(removed.offset()))
                .isEqualTo(removed);
    }
}
