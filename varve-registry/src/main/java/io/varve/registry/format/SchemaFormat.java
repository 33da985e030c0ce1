package io.varve.registry.format;

import java.util.List;

/** One schema format: parses text with its resolved references into a {@link ParsedSchema}, or refuses it (42201). */
public interface SchemaFormat {
    String type();

    ParsedSchema parse(String schema, List<ResolvedReference> references);
}
