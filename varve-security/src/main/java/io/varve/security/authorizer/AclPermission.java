package io.varve.security.authorizer;

import java.util.Optional;

/** ALLOW or DENY, with the wire protocol's codes (ANY only in filters). */
public enum AclPermission {
    ANY(1),
    DENY(2),
    ALLOW(3);

    private final byte code;

    AclPermission(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static Optional<AclPermission> forCode(byte code) {
        for (AclPermission p : values()) {
            if (p.code == code) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
