package io.varve.registry.format;

import java.util.List;

/** A reference with the text of the schema it points at and that schema's own references, resolved. */
public record ResolvedReference(String name, String schemaType, String schema, List<ResolvedReference> references) {}
