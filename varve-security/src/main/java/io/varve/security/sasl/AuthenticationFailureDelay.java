package io.varve.security.sasl;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How long the answer to a failed authentication waits, per peer address: the base delay
 * ({@code connection.failed.authentication.delay.ms}) doubled for each failure of that address within the last
 * minute, capped at 32 times the base — a client that mistyped its password barely notices, a password guesser
 * gets ever slower answers. The table is bounded: past {@code maxAddresses} the least recently failing address is
 * forgotten. Thread safe; the clock is injected.
 */
public final class AuthenticationFailureDelay {
    static final long FORGET_AFTER_MS = 60_000;
    private static final int MAX_DOUBLINGS = 5;

    private record Failures(int count, long lastMs) {}

    private final long baseDelayMs;
    private final int maxAddresses;
    private final LongSupplier clockMs;
    private final Map<String, Failures> byAddress;

    public AuthenticationFailureDelay(long baseDelayMs, int maxAddresses, LongSupplier clockMs) {
        this.baseDelayMs = baseDelayMs;
        this.maxAddresses = maxAddresses;
        this.clockMs = clockMs;
        this.byAddress = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
                return size() > AuthenticationFailureDelay.this.maxAddresses;
            }
        };
    }

    /** Records a failure of {@code address} and returns how long its answer waits. */
    public synchronized long onFailure(String address) {
        if (baseDelayMs <= 0) {
            return 0;
        }
        long now = clockMs.getAsLong();
        Failures before = byAddress.get(address);
        int count = before == null || now - before.lastMs() > FORGET_AFTER_MS ? 1 : before.count() + 1;
        byAddress.put(address, new Failures(count, now));
        return baseDelayMs << Math.min(count - 1, MAX_DOUBLINGS);
    }

    /** A successful authentication clears the address's record. */
    public synchronized void onSuccess(String address) {
        byAddress.remove(address);
    }
}
