package io.varve.security.sasl;

import java.util.Optional;

/** Where a SCRAM exchange looks a user's credential up (the metadata image on a broker). */
@FunctionalInterface
public interface ScramCredentials {
    Optional<ScramCredential> find(String user, ScramMechanism mechanism);
}
