package io.varve.registry.format;

/** A schema's reference to another: the name it uses for it (an import path, a $ref, a type name) and where it is. */
public record SchemaReference(String name, String subject, int version) {}
