package io.varve.registry.format;

import io.varve.registry.RegistryException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Avro, with Apache Avro's own parser (defaults validated) and its reader/writer compatibility check. References are
 * named types defined in other subjects: they are parsed first, dependencies before dependants, into one parser.
 */
final class AvroFormat implements SchemaFormat {
    @Override
    public String type() {
        return Formats.AVRO;
    }

    @Override
    public ParsedSchema parse(String text, List<ResolvedReference> references) {
        Schema.Parser parser = new Schema.Parser();
        parser.setValidateDefaults(true);
        Map<String, Schema> referenced = new LinkedHashMap<>();
        try {
            for (ResolvedReference r : references) {
                parseReference(parser, r, referenced);
            }
            Schema schema = parser.parse(text);
            return new Parsed(schema, List.copyOf(referenced.values()));
        } catch (RuntimeException e) {
            throw RegistryException.invalidSchema("Invalid schema " + text + ", details: " + e.getMessage());
        }
    }

    private static void parseReference(Schema.Parser parser, ResolvedReference r, Map<String, Schema> parsed) {
        if (parsed.containsKey(r.name())) {
            return;
        }
        for (ResolvedReference inner : r.references()) {
            parseReference(parser, inner, parsed);
        }
        parsed.put(r.name(), parser.parse(r.schema()));
    }

    private static final class Parsed implements ParsedSchema {
        private final Schema schema;
        private final List<Schema> referenced;
        private final String canonical;

        Parsed(Schema schema, List<Schema> referenced) {
            this.schema = schema;
            this.referenced = referenced;
            // Referenced types stay references in the stored text, as Confluent stores them.
            this.canonical = referenced.isEmpty() ? schema.toString() : schema.toString(referenced, false);
        }

        @Override
        public String type() {
            return Formats.AVRO;
        }

        @Override
        public String canonical() {
            return canonical;
        }

        @Override
        public String normalized() {
            return canonical;
        }

        @Override
        public List<String> readsDataOf(ParsedSchema writer) {
            Schema writerSchema = ((Parsed) writer).schema;
            SchemaCompatibility.SchemaPairCompatibility result =
                    SchemaCompatibility.checkReaderWriterCompatibility(schema, writerSchema);
            if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
                return List.of();
            }
            List<String> messages = new ArrayList<>();
            for (Incompatibility i : result.getResult().getIncompatibilities()) {
                messages.add("{errorType:'" + i.getType() + "', description:'" + i.getMessage() + " at path '"
                        + i.getLocation() + "' in the reader schema', additionalInfo:'" + i.getMessage() + "'}");
            }
            return messages;
        }

        @Override
        public Optional<String> recordName() {
            return schema.getType() == Schema.Type.RECORD ? Optional.of(schema.getFullName()) : Optional.empty();
        }

        @Override
        public String invalidPayload(byte[] payload, int offset, int length) {
            try {
                BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload, offset, length, null);
                new GenericDatumReader<Object>(schema).read(null, decoder);
                return decoder.isEnd() ? null : "The value has bytes after its Avro datum.";
            } catch (IOException | RuntimeException e) {
                return "The value is not Avro data of its schema: " + e.getMessage();
            }
        }

        @Override
        public String toJson(byte[] payload, int offset, int length) {
            try {
                BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload, offset, length, null);
                Object datum = new GenericDatumReader<Object>(schema).read(null, decoder);
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                org.apache.avro.io.JsonEncoder json =
                        org.apache.avro.io.EncoderFactory.get().jsonEncoder(schema, out);
                new org.apache.avro.generic.GenericDatumWriter<Object>(schema).write(datum, json);
                json.flush();
                return out.toString(java.nio.charset.StandardCharsets.UTF_8);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        List<Schema> referenced() {
            return referenced;
        }
    }
}
