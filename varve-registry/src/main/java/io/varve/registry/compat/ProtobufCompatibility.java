package io.varve.registry.compat;

import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The wire rules for Protobuf schema changes, after Confluent's documented list, written for Varve: fields are matched
 * by number, so names may change and fields may come and go (proto3), but a field's wire kind may change only within
 * a group the wire encodes alike (int32/uint32/int64/uint64/bool, sint32/sint64, string/bytes, fixed32/sfixed32,
 * fixed64/sfixed64); a message type may not disappear, the package may not change, a proto2 required field may be
 * neither added nor removed, and several existing fields may not move into one oneof.
 */
public final class ProtobufCompatibility {
    private static final List<List<String>> WIRE_GROUPS = List.of(
            List.of("int32", "uint32", "int64", "uint64", "bool"),
            List.of("sint32", "sint64"),
            List.of("string", "bytes"),
            List.of("fixed32", "sfixed32"),
            List.of("fixed64", "sfixed64"),
            List.of("float"),
            List.of("double"));

    private final ProtoFileElement reader;
    private final ProtoFileElement writer;
    private final List<String> messages = new ArrayList<>();

    public ProtobufCompatibility(ProtoFileElement reader, ProtoFileElement writer) {
        this.reader = reader;
        this.writer = writer;
    }

    /** One message per incompatibility, Confluent's error type first; empty when compatible. */
    public List<String> check() {
        if (!Objects.equals(nullToEmpty(reader.getPackageName()), nullToEmpty(writer.getPackageName()))) {
            problem("PACKAGE_CHANGED", "#/", "The package changed");
        }
        Map<String, TypeElement> readerTypes = new HashMap<>();
        index("", reader.getTypes(), readerTypes);
        Map<String, TypeElement> writerTypes = new HashMap<>();
        index("", writer.getTypes(), writerTypes);
        for (Map.Entry<String, TypeElement> e : writerTypes.entrySet()) {
            TypeElement r = readerTypes.get(e.getKey());
            if (r == null) {
                problem(
                        e.getValue() instanceof EnumElement ? "ENUM_REMOVED" : "MESSAGE_REMOVED",
                        "#/" + e.getKey(),
                        "The type " + e.getKey() + " was removed");
            } else if (r instanceof MessageElement rm && e.getValue() instanceof MessageElement wm) {
                message(e.getKey(), rm, wm);
            }
        }
        return messages;
    }

    private void message(String name, MessageElement r, MessageElement w) {
        Map<Integer, FieldElement> rFields = fieldsByTag(r);
        Map<Integer, FieldElement> wFields = fieldsByTag(w);
        for (FieldElement wf : wFields.values()) {
            FieldElement rf = rFields.get(wf.getTag());
            String path = "#/" + name + "/" + wf.getTag();
            if (rf == null) {
                if (wf.getLabel() == Field.Label.REQUIRED) {
                    problem("REQUIRED_FIELD_REMOVED", path, "The required field " + wf.getName() + " was removed");
                }
                continue;
            }
            String rt = rf.getType();
            String wt = wf.getType();
            boolean rScalar = isScalar(rt);
            boolean wScalar = isScalar(wt);
            if (rScalar != wScalar) {
                problem("FIELD_KIND_CHANGED", path, "The field " + wf.getName() + " changed kind");
            } else if (rScalar && !sameWireGroup(rt, wt)) {
                problem(
                        "FIELD_SCALAR_KIND_CHANGED",
                        path,
                        "The field " + wf.getName() + " changed from " + wt + " to " + rt);
            } else if (!rScalar && !simpleName(rt).equals(simpleName(wt))) {
                problem(
                        "FIELD_NAMED_TYPE_CHANGED",
                        path,
                        "The field " + wf.getName() + " changed from " + wt + " to " + rt);
            }
        }
        for (FieldElement rf : rFields.values()) {
            if (rf.getLabel() == Field.Label.REQUIRED && !wFields.containsKey(rf.getTag())) {
                problem(
                        "REQUIRED_FIELD_ADDED",
                        "#/" + name + "/" + rf.getTag(),
                        "The required field " + rf.getName() + " was added");
            }
        }
        List<Integer> wOneOfTags = new ArrayList<>();
        for (OneOfElement o : w.getOneOfs()) {
            o.getFields().forEach(f -> wOneOfTags.add(f.getTag()));
        }
        for (OneOfElement o : r.getOneOfs()) {
            int moved = 0;
            for (FieldElement f : o.getFields()) {
                if (w.getFields().stream().anyMatch(wf -> wf.getTag() == f.getTag())
                        && !wOneOfTags.contains(f.getTag())) {
                    moved++;
                }
            }
            if (moved > 1) {
                problem(
                        "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
                        "#/" + name + "/" + o.getName(),
                        "Several existing fields moved into the oneof " + o.getName());
            }
        }
    }

    private static Map<Integer, FieldElement> fieldsByTag(MessageElement m) {
        Map<Integer, FieldElement> out = new HashMap<>();
        m.getFields().forEach(f -> out.put(f.getTag(), f));
        m.getOneOfs().forEach(o -> o.getFields().forEach(f -> out.put(f.getTag(), f)));
        return out;
    }

    private static void index(String prefix, List<TypeElement> types, Map<String, TypeElement> into) {
        for (TypeElement t : types) {
            String name = prefix.isEmpty() ? t.getName() : prefix + "." + t.getName();
            into.put(name, t);
            index(name, t.getNestedTypes(), into);
        }
    }

    static boolean isScalar(String type) {
        for (List<String> g : WIRE_GROUPS) {
            if (g.contains(type)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameWireGroup(String a, String b) {
        for (List<String> g : WIRE_GROUPS) {
            if (g.contains(a)) {
                return g.contains(b);
            }
        }
        return false;
    }

    private static String simpleName(String type) {
        int dot = type.lastIndexOf('.');
        return dot < 0 ? type : type.substring(dot + 1);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private void problem(String type, String path, String description) {
        messages.add("{errorType:'" + type + "', description:'" + description + " at path '" + path + "''}");
    }
}
