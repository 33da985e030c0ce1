package io.varve.security.authorizer;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/** Operations with the wire protocol's codes (ANY only in filters). */
public enum AclOperation {
    ANY(1),
    ALL(2),
    READ(3),
    WRITE(4),
    CREATE(5),
    DELETE(6),
    ALTER(7),
    DESCRIBE(8),
    CLUSTER_ACTION(9),
    DESCRIBE_CONFIGS(10),
    ALTER_CONFIGS(11),
    IDEMPOTENT_WRITE(12),
    CREATE_TOKENS(13),
    DESCRIBE_TOKENS(14),
    TWO_PHASE_COMMIT(15);

    private final byte code;

    AclOperation(int code) {
        this.code = (byte) code;
    }

    public byte code() {
        return code;
    }

    /**
     * The operations whose ALLOW grants this one: itself, ALL, and as in Kafka READ, WRITE, DELETE or ALTER grant
     * DESCRIBE, and ALTER_CONFIGS grants DESCRIBE_CONFIGS. A DENY is not implied: it denies what it names (or ALL).
     */
    public Set<AclOperation> allowedBy() {
        Set<AclOperation> ops = EnumSet.of(this, ALL);
        if (this == DESCRIBE) {
            ops.addAll(EnumSet.of(READ, WRITE, DELETE, ALTER));
        } else if (this == DESCRIBE_CONFIGS) {
            ops.add(ALTER_CONFIGS);
        }
        return ops;
    }

    public static Optional<AclOperation> forCode(byte code) {
        for (AclOperation o : values()) {
            if (o.code == code) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }
}
