package io.varve.registry;

import io.varve.registry.format.SchemaReference;
import java.util.List;

/**
 * A schema as a client sends it: text, type (null for AVRO), references, and in IMPORT mode the id and version to
 * keep (null otherwise).
 */
public record RegisterRequest(
        String schema, String schemaType, List<SchemaReference> references, Integer id, Integer version) {
    public RegisterRequest {
        references = references == null ? List.of() : List.copyOf(references);
    }

    public static RegisterRequest of(String schemaType, String schema, SchemaReference... references) {
        return new RegisterRequest(schema, schemaType, List.of(references), null, null);
    }
}
