package io.varve.security.authorizer;

import java.util.Optional;

/**
 * How an ACL's resource name matches: LITERAL (the name itself, or {@code *} for every name) or PREFIXED (every name
 * starting with it). ANY and MATCH appear only in filters: ANY matches ACLs of either pattern type as written, MATCH
 * the ACLs that would apply to a resource of that name.
 */
public enum PatternType {
    ANY(1),
    MATCH(2),
    LITERAL(3),
    PREFIXED(4);

    private final byte code;

    PatternType(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    public static Optional<PatternType> forCode(byte code) {
        for (PatternType t : values()) {
            if (t.code == code) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}
