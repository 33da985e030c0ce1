package io.varve.registry.format;

import io.varve.registry.RegistryException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The formats this registry knows, by the REST API's {@code schemaType} (AVRO when absent, as Confluent's). */
public final class Formats {
    public static final String AVRO = "AVRO";
    public static final String JSON = "JSON";
    public static final String PROTOBUF = "PROTOBUF";

    private final Map<String, SchemaFormat> byType = new LinkedHashMap<>();

    public Formats() {
        for (SchemaFormat f : List.of(new JsonSchemaFormat(), new ProtobufFormat(), new AvroFormat())) {
            byType.put(f.type(), f);
        }
    }

    /** JSON, PROTOBUF, AVRO: the order Confluent's {@code /schemas/types} lists them in. */
    public List<String> types() {
        return List.copyOf(byType.keySet());
    }

    /** The type name as stored: upper case, AVRO for null or empty. */
    public static String normalizeType(String schemaType) {
        return schemaType == null || schemaType.isEmpty() ? AVRO : schemaType.toUpperCase(Locale.ROOT);
    }

    public SchemaFormat format(String schemaType) {
        SchemaFormat f = byType.get(normalizeType(schemaType));
        if (f == null) {
            throw RegistryException.invalidSchema("Invalid schema type " + schemaType);
        }
        return f;
    }

    public ParsedSchema parse(String schemaType, String schema, List<ResolvedReference> references) {
        if (schema == null || schema.isBlank()) {
            throw RegistryException.invalidSchema("Empty schema");
        }
        return format(schemaType).parse(schema, references);
    }
}
