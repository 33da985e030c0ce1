package io.varve.registry.state;

import io.varve.registry.format.SchemaReference;
import java.util.List;

/** A schema as stored under its global id: its type, canonical text and references. */
public record StoredSchema(int id, String schemaType, String schema, List<SchemaReference> references) {
    /** What makes two registrations the same schema (and so the same id). */
    public String contentKey() {
        return contentKey(schemaType, schema, references);
    }

    public static String contentKey(String schemaType, String schema, List<SchemaReference> references) {
        StringBuilder b = new StringBuilder(schemaType).append('\0').append(schema);
        for (SchemaReference r : references) {
            b.append('\0')
                    .append(r.name())
                    .append('\0')
                    .append(r.subject())
                    .append('\0')
                    .append(r.version());
        }
        return b.toString();
    }
}
