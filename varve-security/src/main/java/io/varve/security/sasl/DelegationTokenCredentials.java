package io.varve.security.sasl;

import java.util.Optional;

/**
 * Where a SCRAM exchange with {@code tokenauth=true} looks a token up by its id (the SCRAM user name): empty for an
 * unknown, removed or expired token.
 */
@FunctionalInterface
public interface DelegationTokenCredentials {
    Optional<DelegationTokenCredential> find(String tokenId, ScramMechanism mechanism);
}
