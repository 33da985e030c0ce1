package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every user's SCRAM credentials, by user name and mechanism type id. Immutable; what brokers authenticate
 * SCRAM-SHA-256 and SCRAM-SHA-512 clients against, and what DescribeUserScramCredentials lists.
 */
public record ScramImage(Map<String, Map<Byte, UserScramCredentialRecord>> users) {
    public static final ScramImage EMPTY = new ScramImage(Map.of());

    public ScramImage {
        TreeMap<String, Map<Byte, UserScramCredentialRecord>> copy = new TreeMap<>();
        users.forEach((user, byMechanism) -> {
            if (!byMechanism.isEmpty()) {
                copy.put(user, Collections.unmodifiableMap(new TreeMap<>(byMechanism)));
            }
        });
        users = Collections.unmodifiableMap(copy);
    }

    public Optional<UserScramCredentialRecord> credential(String user, byte mechanism) {
        return Optional.ofNullable(users.getOrDefault(user, Map.of()).get(mechanism));
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        users.values().forEach(byMechanism -> byMechanism.values().forEach(out));
    }
}
