package io.varve.registry.compat;

import io.varve.registry.format.ParsedSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies a compatibility level: a candidate against the earlier versions the level names (every live one when
 * transitive, else the latest), newest first, stopping at the first version it is incompatible with. Pure.
 */
public final class CompatibilityChecker {
    /** An earlier live version of the subject and its parsed schema. */
    public record Previous(int version, ParsedSchema schema) {}

    private CompatibilityChecker() {}

    /** Which earlier versions {@code level} checks, given the live versions oldest first. */
    public static <T> List<T> versionsToCheck(List<T> live, CompatibilityLevel level) {
        if (level == CompatibilityLevel.NONE || live.isEmpty()) {
            return List.of();
        }
        return level.transitive() ? live : List.of(live.get(live.size() - 1));
    }

    /** Why {@code candidate} may not follow {@code previous} (oldest first) under {@code level}; empty when it may. */
    public static List<String> check(ParsedSchema candidate, List<Previous> previous, CompatibilityLevel level) {
        List<String> problems = new ArrayList<>();
        for (int i = previous.size() - 1; i >= 0 && problems.isEmpty(); i--) {
            Previous p = previous.get(i);
            if (!p.schema().type().equals(candidate.type())) {
                problems.add("Incompatible because of different schema type");
            } else {
                if (level.backward()) {
                    problems.addAll(candidate.readsDataOf(p.schema()));
                }
                if (level.forward()) {
                    problems.addAll(p.schema().readsDataOf(candidate));
                }
            }
            if (!problems.isEmpty()) {
                problems.add("{oldSchemaVersion: " + p.version() + "}");
                problems.add("{compatibility: '" + level + "'}");
            }
        }
        return problems;
    }
}
