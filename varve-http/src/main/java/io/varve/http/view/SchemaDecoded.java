package io.varve.http.view;

/**
 * A value in the schema registry's wire format (magic byte 0, a 4-byte schema id), read with its schema.
 *
 * @param type  AVRO, JSON or PROTOBUF; null when the registry holds no schema of that id
 * @param json  the value as JSON text, or null when it could not be decoded (or the format is not decoded here)
 */
public record SchemaDecoded(int schemaId, String type, String json) {}
