package io.varve.metadata.controller.security;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RemoveUserScramCredentialRecord;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterUserScramCredentials on the controller: each user's deletions and upsertions succeed or fail together, as in
 * Kafka. The broker-side handler has already checked the request's shape (names, mechanisms, iterations, duplicates)
 * and derived the stored and server keys; what is left to decide against the image is whether a deleted credential
 * exists. Pure: no I/O, no threads.
 */
public final class ScramControl {

    /** A credential to remove. */
    public record Deletion(String user, byte mechanism) {}

    /** @return per user (in request order) its result, and the records of the users that succeeded */
    public ControllerResult<Map<String, ErrorReply>> alter(
            MetadataImage image, List<Deletion> deletions, List<UserScramCredentialRecord> upsertions) {
        Map<String, List<MetadataRecord>> byUser = new LinkedHashMap<>();
        Map<String, ErrorReply> results = new LinkedHashMap<>();
        for (Deletion d : deletions) {
            byUser.computeIfAbsent(d.user(), u -> new ArrayList<>());
            if (image.scram().credential(d.user(), d.mechanism()).isEmpty()) {
                results.putIfAbsent(
                        d.user(),
                        ErrorReply.of(
                                Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist"));
            } else {
                byUser.get(d.user()).add(new RemoveUserScramCredentialRecord(d.user(), d.mechanism()));
            }
        }
        for (UserScramCredentialRecord u : upsertions) {
            byUser.computeIfAbsent(u.name(), n -> new ArrayList<>()).add(u);
        }
        List<MetadataRecord> records = new ArrayList<>();
        Map<String, ErrorReply> ordered = new LinkedHashMap<>();
        byUser.forEach((user, userRecords) -> {
            ErrorReply result = results.getOrDefault(user, ErrorReply.NONE);
            if (result.error() == Errors.NONE) {
                records.addAll(userRecords);
            }
            ordered.put(user, result);
        });
        return ControllerResult.of(records, ordered);
    }
}
