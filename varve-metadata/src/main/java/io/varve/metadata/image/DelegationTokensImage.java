package io.varve.metadata.image;

import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every live delegation token by id. Immutable; what brokers authenticate {@code tokenauth=true} SCRAM clients
 * against, what DescribeDelegationToken lists, and what the controller renews, expires and removes.
 */
public record DelegationTokensImage(Map<String, DelegationTokenRecord> tokens) {
    public static final DelegationTokensImage EMPTY = new DelegationTokensImage(Map.of());

    public DelegationTokensImage {
        tokens = Collections.unmodifiableMap(new TreeMap<>(tokens));
    }

    public Optional<DelegationTokenRecord> token(String tokenId) {
        return Optional.ofNullable(tokens.get(tokenId));
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        tokens.values().forEach(out);
    }
}
