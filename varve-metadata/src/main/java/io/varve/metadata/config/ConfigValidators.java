package io.varve.metadata.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** The validators topic configs need, with Kafka's wording of the reasons. */
public final class ConfigValidators {

    private static final Pattern THROTTLED_REPLICA = Pattern.compile("\\d+:\\d+");

    private ConfigValidators() {}

    public static ConfigValidator atLeast(long min) {
        return value -> {
            boolean below = value instanceof Double d ? d < min : ((Number) value).longValue() < min;
            if (below) {
                throw new IllegalArgumentException("Value must be at least " + min);
            }
        };
    }

    public static ConfigValidator between(double min, double max) {
        return value -> {
            double number = ((Number) value).doubleValue();
            if (number < min || number > max) {
                throw new IllegalArgumentException(
                        "Value must be in the range [" + format(min) + ", " + format(max) + "]");
            }
        };
    }

    /** {@code [min, max]} or the single extra value (such as -1 for "codec default"). */
    public static ConfigValidator betweenOr(long min, long max, long alternative) {
        return value -> {
            long number = ((Number) value).longValue();
            if (number != alternative && (number < min || number > max)) {
                throw new IllegalArgumentException(
                        "Value must be in the range [" + min + ", " + max + "] or " + alternative);
            }
        };
    }

    public static ConfigValidator in(String... allowed) {
        List<String> values = List.of(allowed);
        return value -> {
            if (!values.contains(value)) {
                throw new IllegalArgumentException("String must be one of: " + String.join(", ", values));
            }
        };
    }

    /** Every element is one of {@code allowed}, without duplicates; an empty list is accepted. */
    public static ConfigValidator listOf(String... allowed) {
        List<String> values = List.of(allowed);
        return value -> {
            Set<String> seen = new HashSet<>();
            for (Object element : (List<?>) value) {
                if (!values.contains(element)) {
                    throw new IllegalArgumentException(
                            "Invalid value " + element + " in list: must be one of " + values);
                }
                if (!seen.add((String) element)) {
                    throw new IllegalArgumentException("Duplicate value " + element + " in list");
                }
            }
        };
    }

    /** {@code *}, or a list of {@code partitionId:brokerId} pairs. */
    public static ConfigValidator throttledReplicas() {
        return value -> {
            List<?> elements = (List<?>) value;
            if (elements.size() == 1 && "*".equals(elements.get(0))) {
                return;
            }
            for (Object element : elements) {
                if (!THROTTLED_REPLICA.matcher((String) element).matches()) {
                    throw new IllegalArgumentException("Value must be a list of partitionId:brokerId pairs, or *");
                }
            }
        };
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
