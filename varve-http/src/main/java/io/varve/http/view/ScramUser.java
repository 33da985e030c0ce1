package io.varve.http.view;

import java.util.List;

/** A user with SCRAM credentials: its mechanisms and their iterations, never a salt or a key. */
public record ScramUser(String name, List<Credential> credentials) {
    public record Credential(String mechanism, int iterations) {}
}
