package io.varve.registry.state;

/** One version of a subject: the id of its schema, and whether it is soft-deleted. */
public record SubjectVersion(String subject, int version, int id, boolean deleted) {}
