package io.varve.security.authorizer;

import java.util.Optional;

/** What an ACL protects, with the wire protocol's codes (ANY only in filters). */
public enum ResourceType {
    ANY(1),
    TOPIC(2),
    GROUP(3),
    CLUSTER(4),
    TRANSACTIONAL_ID(5),
    DELEGATION_TOKEN(6),
    USER(7);

    private final byte code;

    ResourceType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static Optional<ResourceType> forCode(byte code) {
        for (ResourceType t : values()) {
            if (t.code == code) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
