package io.varve.security;

import java.util.Objects;

/**
 * An authenticated identity as Kafka writes it: a type and a name ({@code User:alice}). ACLs and {@code super.users}
 * name principals this way; a connection nobody authenticated (PLAINTEXT, TLS without a client certificate) is
 * {@link #ANONYMOUS}.
 *
 * <p>{@code tokenAuthenticated} marks a principal proven with a delegation token (SCRAM with {@code tokenauth=true}):
 * the token's owner, who may not ask for more tokens over that connection. As in Kafka it is not part of the identity:
 * equality, hashing and ACL matching look at the type and name only.
 */
public record Principal(String type, String name, boolean tokenAuthenticated) {
    public static final String USER_TYPE = "User";
    public static final Principal ANONYMOUS = new Principal(USER_TYPE, "ANONYMOUS");

    public Principal(String type, String name) {
        this(type, name, false);
    }

    public Principal {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        if (type.isEmpty()) {
            throw new IllegalArgumentException("a principal needs a type");
        }
    }

    public static Principal user(String name) {
        return new Principal(USER_TYPE, name);
    }

    /** Parses {@code Type:name} (the name may itself contain colons, as a certificate's subject may). */
    public static Principal parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a principal: expected Type:name, e.g. User:alice");
        }
        return new Principal(text.substring(0, colon), text.substring(colon + 1));
    }

    /** The owner of a delegation token, authenticated with the token. */
    public static Principal tokenOwner(Principal owner) {
        return new Principal(owner.type, owner.name, true);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Principal p && type.equals(p.type) && name.equals(p.name);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode() + name.hashCode();
    }

    @Override
    public String toString() {
        return type + ":" + name;
    }
}
