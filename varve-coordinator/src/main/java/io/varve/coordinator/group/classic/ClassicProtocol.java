package io.varve.coordinator.group.classic;

import java.util.Arrays;

/** One protocol a member supports (an assignor name for consumers) with its metadata (the subscription). */
public record ClassicProtocol(String name, byte[] metadata) {
    @Override
    public boolean equals(Object o) {
        return o instanceof ClassicProtocol p && name.equals(p.name) && Arrays.equals(metadata, p.metadata);
    }

    @Override
    public int hashCode() {
        return 31 * name.hashCode() + Arrays.hashCode(metadata);
    }
}
