package io.varve.metadata.record;

/** An inclusive range of feature levels a broker supports, as in BrokerRegistrationRequest's Features. */
public record VersionRange(short min, short max) {

    public VersionRange {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("invalid version range [" + min + ", " + max + "]");
        }
    }

    public static VersionRange of(int min, int max) {
        return new VersionRange((short) min, (short) max);
    }

    public boolean contains(short level) {
        return level >= min && level <= max;
    }

    @Override
    public String toString() {
        return "[" + min + ", " + max + "]";
    }
}
