package io.varve.security.quota;

/**
 * Credit that refills at the quota's rate up to a burst: what decides throttle times. Recording takes credit (it may
 * go negative); the throttle is the time the deficit takes to refill. A client that waits out every throttle runs at
 * exactly the rate, whatever the size and timing of its requests. Kafka uses this rule for {@code
 * controller_mutation_rate} (KIP-599); Varve uses it for every quota because with sampled windows alone the sample
 * that held a burst lets a second burst through when it expires, and a greedy producer ran 20 % off its quota in the
 * integration test. Not thread safe.
 */
final class TokenBucket {
    private final long burstSpanMs;
    private double credit;
    private long lastMs;
    private double rateBound = Double.NaN;

    /** @param burstSpanMs how many ms of the rate an idle client may send at once */
    TokenBucket(long burstSpanMs, long nowMs) {
        this.burstSpanMs = burstSpanMs;
        this.lastMs = nowMs;
    }

    /** Takes {@code value} of credit (a negative value gives it back); the ms until the credit is back at zero. */
    long record(double value, double bound, long nowMs) {
        refill(bound, nowMs);
        credit -= value;
        return throttleMs(bound, nowMs);
    }

    long throttleMs(double bound, long nowMs) {
        refill(bound, nowMs);
        return credit >= 0 ? 0 : (long) Math.ceil(-credit * 1000.0 / bound);
    }

    private void refill(double bound, long nowMs) {
        double max = bound * burstSpanMs / 1000.0;
        if (Double.isNaN(rateBound)) {
            credit = max; // a client starts with a full burst, as its empty windows allow
        } else if (nowMs > lastMs) {
            credit += (nowMs - lastMs) * bound / 1000.0;
        }
        credit = Math.min(credit, max);
        rateBound = bound;
        lastMs = Math.max(lastMs, nowMs);
    }
}
