package io.varve.metadata.image;

import io.varve.metadata.record.DelegationTokenRecord;
import io.varve.metadata.record.RemoveDelegationTokenRecord;
import java.util.HashMap;
import java.util.Map;

/** Delegation tokens issued, renewed and removed on top of a base {@link DelegationTokensImage}. */
public final class DelegationTokensDelta {
    private final Map<String, DelegationTokenRecord> tokens;

    DelegationTokensDelta(DelegationTokensImage base) {
        this.tokens = new HashMap<>(base.tokens());
    }

    void replay(DelegationTokenRecord record) {
        tokens.put(record.tokenId(), record);
    }

    void replay(RemoveDelegationTokenRecord record) {
        if (tokens.remove(record.tokenId()) == null) {
            throw new IllegalStateException("no delegation token " + record.tokenId() + " to remove");
        }
    }

    DelegationTokensImage apply() {
        return new DelegationTokensImage(tokens);
    }
}
