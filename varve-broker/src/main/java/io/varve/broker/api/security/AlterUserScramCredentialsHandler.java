package io.varve.broker.api.security;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.security.ScramControl;
import io.varve.metadata.record.UserScramCredentialRecord;
import io.varve.security.sasl.ScramCredential;
import io.varve.security.sasl.ScramMechanism;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterUserScramCredentials on the active controller: checks each user's changes as Kafka does (a name, a SCRAM
 * mechanism, 4096 to 16384 iterations, a credential changed at most once per request), derives the stored and server
 * keys from the client's salted password (the password itself never reaches the broker), and lets {@link
 * ScramControl} decide the rest. One result per user; a user's changes apply together or not at all.
 */
public final class AlterUserScramCredentialsHandler implements ApiHandler {
    private final QuorumController controller;

    public AlterUserScramCredentialsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterUserScramCredentialsRequestData data = request.body();
        Map<String, ErrorReply> refused = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        List<String> users = new ArrayList<>();
        List<ScramControl.Deletion> deletions = new ArrayList<>();
        for (ScramCredentialDeletion d : data.deletions()) {
            users.add(d.name());
            check(d.name(), d.mechanism(), null, seen).ifPresent(e -> refused.putIfAbsent(d.name(), e));
            deletions.add(new ScramControl.Deletion(d.name(), d.mechanism()));
        }
        List<UserScramCredentialRecord> upsertions = new ArrayList<>();
        for (ScramCredentialUpsertion u : data.upsertions()) {
            users.add(u.name());
            Optional<ErrorReply> error = check(u.name(), u.mechanism(), u.iterations(), seen);
            if (error.isPresent()) {
                refused.putIfAbsent(u.name(), error.get());
                continue;
            }
            ScramMechanism mechanism = ScramMechanism.forTypeId(u.mechanism()).orElseThrow();
            ScramCredential credential = mechanism.credential(u.salt(), u.saltedPassword(), u.iterations());
            upsertions.add(new UserScramCredentialRecord(
                    u.name(),
                    u.mechanism(),
                    credential.salt(),
                    credential.storedKey(),
                    credential.serverKey(),
                    credential.iterations()));
        }
        // users with a refused change are left out whole: their other changes must not apply either
        deletions.removeIf(d -> refused.containsKey(d.user()));
        upsertions.removeIf(u -> refused.containsKey(u.name()));
        return controller.alterUserScramCredentials(deletions, upsertions).thenApply(decided -> {
            AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
            users.stream().distinct().forEach(user -> {
                ErrorReply result = refused.getOrDefault(user, decided.getOrDefault(user, ErrorReply.NONE));
                response.results()
                        .add(new AlterUserScramCredentialsResult()
                                .setUser(user)
                                .setErrorCode(result.error().code())
                                .setErrorMessage(result.message()));
            });
            return response;
        });
    }

    private static Optional<ErrorReply> check(String user, byte mechanism, Integer iterations, Set<String> seen) {
        if (user == null || user.isEmpty()) {
            return Optional.of(ErrorReply.of(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"));
        }
        if (ScramMechanism.forTypeId(mechanism).isEmpty()) {
            return Optional.of(ErrorReply.of(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"));
        }
        if (!seen.add(user + "\0" + mechanism)) {
            return Optional.of(ErrorReply.of(
                    Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request"));
        }
        if (iterations != null && iterations < ScramMechanism.MIN_ITERATIONS) {
            return Optional.of(ErrorReply.of(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations"));
        }
        if (iterations != null && iterations > ScramMechanism.MAX_ITERATIONS) {
            return Optional.of(ErrorReply.of(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations"));
        }
        return Optional.empty();
    }
}
