package io.varve.security.quota;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaManagerTest {
    private static final QuotaResolver.Resolved ALICE_1KB = new QuotaResolver.Resolved("alice", "", 1000);

    @Test
    void aClientWithinItsQuotaIsNeverThrottled() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        for (long now = 0; now < 60_000; now += 100) {
            assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 90, now)).isZero();
        }
    }

    @Test
    void anIdleClientMaySendItsWindowsWorthAtOnceAndIsThenThrottledForTheExcess() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        // ten windows' worth (10 kB) passes; 20 kB is 10 kB over, ten seconds of the rate
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 10_000, 0)).isZero();
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 10_000, 0)).isEqualTo(10_000);
        // waiting it out clears the throttle; 500 ms later half a second's worth is due again
        assertThat(quotas.throttleMs(ALICE_1KB, 10_000)).isZero();
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 1_000, 10_500)).isEqualTo(500);
    }

    @Test
    void eachTrackedRateIsReportedWithTheMeanOfTheThrottlesItEarnedWithinTheWindows() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        QuotaResolver.Resolved bobClient = new QuotaResolver.Resolved("bob", "app", 1000);
        quotas.recordAndGetThrottleMs(bobClient, 500, 0); // within: counts toward the rate, not the throttle mean
        quotas.recordAndGetThrottleMs(ALICE_1KB, 10_000, 0);
        long first = quotas.recordAndGetThrottleMs(ALICE_1KB, 2_000, 0); // 2 s over
        long second = quotas.recordAndGetThrottleMs(ALICE_1KB, 4_000, 0); // 6 s over
        Map<String, double[]> seen = new HashMap<>();
        quotas.forEachRate(
                0,
                (user, clientId, rate, throttleAvgMs) ->
                        seen.put(user + "/" + clientId, new double[] {rate, throttleAvgMs}));
        assertThat(seen).containsOnlyKeys("alice/", "bob/app");
        assertThat(seen.get("alice/")[0]).isEqualTo(1_600.0); // 16 kB over at least ten windows
        assertThat(seen.get("alice/")[1]).isEqualTo((first + second) / 2.0).isEqualTo(4_000.0);
        assertThat(seen.get("bob/app")).containsExactly(50.0, 0.0);
        // once the windows have passed, the throttles no longer count
        quotas.forEachRate(12_000, (user, clientId, rate, throttleAvgMs) -> {
            if (user.equals("alice")) {
                assertThat(throttleAvgMs).isZero();
            }
        });
    }

    @Test
    void theThrottleNeverExceedsTheSamplesSpan() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 1e9, 0)).isEqualTo(11_000);
    }

    @Test
    void theRateIsMeasuredOverTheSampledWindows() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        quotas.recordAndGetThrottleMs(ALICE_1KB, 5_000, 0);
        // one burst after a quiet period counts over at least ten windows
        assertThat(quotas.ratePerSecond(ALICE_1KB, 0)).isEqualTo(500.0);
    }

    @Test
    void aClientThatHonoursEveryThrottleRunsAtItsQuotaWhateverItsRequestSizes() {
        for (int requestBytes :
                new int[] {50, 500, 1_000}) { // up to a window's worth: the cap on a throttle never binds
            for (int samples : new int[] {2, 4, 11}) {
                QuotaManager quotas = new QuotaManager(samples, 1000);
                long now = 0;
                double sent = 0;
                long measuredFromMs = 30_000;
                double sentBeforeMeasuring = -1;
                while (now < 120_000) {
                    if (now >= measuredFromMs && sentBeforeMeasuring < 0) {
                        sentBeforeMeasuring = sent;
                        measuredFromMs = now;
                    }
                    sent += requestBytes;
                    long throttle = quotas.recordAndGetThrottleMs(ALICE_1KB, requestBytes, now);
                    now += Math.max(throttle, 7); // a greedy client: sends again as soon as it may
                }
                double rate = (sent - sentBeforeMeasuring) * 1000 / (now - measuredFromMs);
                assertThat(rate)
                        .as("%d-byte requests, %d samples", requestBytes, samples)
                        .isBetween(970.0, 1030.0);
            }
        }
    }

    @Test
    void unrecordedWorkDoesNotCount() {
        QuotaManager quotas = new QuotaManager(11, 1000);
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 50_000, 0)).isPositive();
        quotas.unrecord(ALICE_1KB, 50_000, 0);
        assertThat(quotas.throttleMs(ALICE_1KB, 0)).isZero();
    }

    @Test
    void ratesOfDifferentEntitiesAreIndependentAndIdleOnesAreDropped() {
        QuotaManager quotas = new QuotaManager(2, 1000);
        QuotaResolver.Resolved bob = new QuotaResolver.Resolved("bob", "", 1000);
        assertThat(quotas.recordAndGetThrottleMs(ALICE_1KB, 10_000, 0)).isPositive();
        assertThat(quotas.recordAndGetThrottleMs(bob, 10, 0)).isZero();
        assertThat(quotas.trackedRates()).isEqualTo(2);
        quotas.recordAndGetThrottleMs(bob, 10, 10_000);
        assertThat(quotas.trackedRates()).isEqualTo(1);
    }

    @Test
    void samplesOlderThanTheSpanNoLongerCount() {
        SampledRate rate = new SampledRate(3, 1000, 0);
        rate.record(3000, 0);
        assertThat(rate.ratePerSecond(0)).isEqualTo(1500.0); // measured over at least two windows
        assertThat(rate.ratePerSecond(3_500)).isZero();
    }

    @Test
    void theMostSpecificEntityWins() {
        Map<Map<String, String>, Map<String, Double>> quotas = new HashMap<>();
        quotas.put(entity(null, null, false, true), Map.of("producer_byte_rate", 1.0)); // default client-id
        quotas.put(entity(null, "app", false, true), Map.of("producer_byte_rate", 2.0)); // client-id app
        quotas.put(entity(null, null, true, false), Map.of("producer_byte_rate", 3.0)); // default user
        quotas.put(entity("alice", null, true, false), Map.of("producer_byte_rate", 4.0)); // user alice
        quotas.put(entity("alice", "app", true, true), Map.of("producer_byte_rate", 5.0));
        QuotaResolver resolver = new QuotaResolver(e -> quotas.getOrDefault(e, Map.of()));

        assertThat(resolver.resolve("alice", "app", "producer_byte_rate"))
                .contains(new QuotaResolver.Resolved("alice", "app", 5.0));
        assertThat(resolver.resolve("alice", "other", "producer_byte_rate"))
                .contains(new QuotaResolver.Resolved("alice", "", 4.0));
        // the default user's quota is one rate per user
        assertThat(resolver.resolve("bob", "app", "producer_byte_rate"))
                .contains(new QuotaResolver.Resolved("bob", "", 3.0));
        assertThat(resolver.resolve("bob", "app", "consumer_byte_rate")).isEmpty();

        quotas.remove(entity(null, null, true, false));
        assertThat(resolver.resolve("bob", "app", "producer_byte_rate"))
                .contains(new QuotaResolver.Resolved("", "app", 2.0));
        assertThat(resolver.resolve("bob", "x", "producer_byte_rate"))
                .contains(new QuotaResolver.Resolved("", "x", 1.0));
    }

    private static Map<String, String> entity(String user, String clientId, boolean hasUser, boolean hasClient) {
        Map<String, String> entity = new HashMap<>();
        if (hasUser) {
            entity.put(QuotaResolver.USER, user);
        }
        if (hasClient) {
            entity.put(QuotaResolver.CLIENT_ID, clientId);
        }
        return entity;
    }
}
