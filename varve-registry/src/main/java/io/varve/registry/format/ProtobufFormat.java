package io.varve.registry.format;

import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.TypeElement;
import io.varve.registry.RegistryException;
import io.varve.registry.compat.ProtobufCompatibility;
import io.varve.registry.compat.ProtobufWire;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Protobuf {@code .proto} text, parsed by Square's wire-schema; each import must be a reference (named by its import
 * path) or one of Google's well-known types. Compatibility is the wire rules ({@link ProtobufCompatibility}).
 */
final class ProtobufFormat implements SchemaFormat {
    @Override
    public String type() {
        return Formats.PROTOBUF;
    }

    @Override
    public ParsedSchema parse(String text, List<ResolvedReference> references) {
        Map<String, ProtoFileElement> imported = new LinkedHashMap<>();
        ProtoFileElement file = parseFile("schema.proto", text);
        for (ResolvedReference r : references) {
            collect(r, imported);
        }
        requireImports(file, imported);
        for (ProtoFileElement f : imported.values()) {
            requireImports(f, imported);
        }
        return new Parsed(text, file, imported);
    }

    private static void collect(ResolvedReference r, Map<String, ProtoFileElement> into) {
        if (into.containsKey(r.name())) {
            return;
        }
        into.put(r.name(), parseFile(r.name(), r.schema()));
        for (ResolvedReference inner : r.references()) {
            collect(inner, into);
        }
    }

    private static ProtoFileElement parseFile(String name, String text) {
        try {
            return ProtoParser.Companion.parse(Location.get(name), text);
        } catch (RuntimeException e) {
            throw RegistryException.invalidSchema("Invalid schema " + text + ", details: " + e.getMessage());
        }
    }

    private static void requireImports(ProtoFileElement file, Map<String, ProtoFileElement> imported) {
        for (String i : file.getImports()) {
            if (!imported.containsKey(i) && !i.startsWith("google/protobuf/") && !i.startsWith("confluent/")) {
                throw RegistryException.invalidSchema(
                        "Invalid schema, details: the import '" + i + "' is not among the schema's references");
            }
        }
        for (String i : file.getPublicImports()) {
            if (!imported.containsKey(i) && !i.startsWith("google/protobuf/")) {
                throw RegistryException.invalidSchema(
                        "Invalid schema, details: the import '" + i + "' is not among the schema's references");
            }
        }
    }

    /** Wire's formatter heads its text with two comment lines (a notice and the file name): not part of a schema. */
    static String withoutFormatterHeader(String formatted) {
        String text = formatted;
        while (text.startsWith("//")) {
            int eol = text.indexOf('\n');
            text = eol < 0 ? "" : text.substring(eol + 1);
        }
        return text.strip();
    }

    private static final class Parsed implements ParsedSchema {
        private final String text;
        private final ProtoFileElement file;
        private final Map<String, ProtoFileElement> imported;

        Parsed(String text, ProtoFileElement file, Map<String, ProtoFileElement> imported) {
            this.text = text;
            this.file = file;
            this.imported = imported;
        }

        @Override
        public String type() {
            return Formats.PROTOBUF;
        }

        @Override
        public String canonical() {
            return text.strip();
        }

        @Override
        public String normalized() {
            return withoutFormatterHeader(file.toSchema());
        }

        @Override
        public List<String> readsDataOf(ParsedSchema writer) {
            return new ProtobufCompatibility(file, ((Parsed) writer).file).check();
        }

        @Override
        public Optional<String> recordName() {
            for (TypeElement t : file.getTypes()) {
                if (t instanceof MessageElement) {
                    String pkg = file.getPackageName();
                    return Optional.of(pkg == null || pkg.isEmpty() ? t.getName() : pkg + "." + t.getName());
                }
            }
            return Optional.empty();
        }

        @Override
        public String toJson(byte[] payload, int offset, int length) {
            return invalidPayload(payload, offset, length) == null
                    ? io.varve.registry.compat.ProtobufJson.toJson(file, payload, offset, length)
                    : null;
        }

        @Override
        public String invalidPayload(byte[] payload, int offset, int length) {
            return ProtobufWire.invalidPayload(file, payload, offset, length);
        }
    }
}
