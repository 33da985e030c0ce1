package io.varve.metadata.image;

import io.varve.metadata.record.RemoveUserScramCredentialRecord;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.HashMap;
import java.util.Map;

/** SCRAM credential changes on top of a base {@link ScramImage}. */
public final class ScramDelta {
    private final ScramImage base;
    private final Map<String, Map<Byte, UserScramCredentialRecord>> changed = new HashMap<>();

    ScramDelta(ScramImage base) {
        this.base = base;
    }

    private Map<Byte, UserScramCredentialRecord> user(String name) {
        return changed.computeIfAbsent(name, n -> new HashMap<>(base.users().getOrDefault(n, Map.of())));
    }

    void replay(UserScramCredentialRecord record) {
        user(record.name()).put(record.mechanism(), record);
    }

    void replay(RemoveUserScramCredentialRecord record) {
        if (user(record.name()).remove(record.mechanism()) == null) {
            throw new IllegalStateException(
                    "no SCRAM credential of mechanism " + record.mechanism() + " for user " + record.name());
        }
    }

    ScramImage apply() {
        Map<String, Map<Byte, UserScramCredentialRecord>> next = new HashMap<>(base.users());
        next.putAll(changed);
        return new ScramImage(next);
    }
}
