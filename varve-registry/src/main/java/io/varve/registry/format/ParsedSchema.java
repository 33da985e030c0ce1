package io.varve.registry.format;

import java.util.List;
import java.util.Optional;

/** A schema that parsed: its canonical text, its compatibility with another of its format, its record check. */
public interface ParsedSchema {
    /** AVRO, JSON or PROTOBUF, as the REST API names them. */
    String type();

    /** The text the registry stores and serves, and compares to find a schema that is already registered. */
    String canonical();

    /** The canonical text after normalisation ({@code normalize=true}): formatting and key order do not matter. */
    String normalized();

    /**
     * Why a reader with this schema cannot read data written with {@code writer}, one message per problem; empty when
     * it can. {@code writer} is of the same format.
     */
    List<String> readsDataOf(ParsedSchema writer);

    /** The name RecordNameStrategy uses: Avro's full record name, JSON Schema's title, Protobuf's first message. */
    Optional<String> recordName();

    /**
     * Why {@code payload} (a record value after the 5-byte wire header) is not data of this schema, or null when it is.
     */
    String invalidPayload(byte[] payload, int offset, int length);

    /**
     * {@code payload} (after the wire header) as JSON text for people to read (the console's message browser), or null
     * when this format does not decode to JSON here or the payload is not data of this schema.
     */
    default String toJson(byte[] payload, int offset, int length) {
        return null;
    }
}
