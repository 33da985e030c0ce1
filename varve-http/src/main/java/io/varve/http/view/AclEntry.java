package io.varve.http.view;

/** One ACL as {@code kafka-acls} names its parts (TOPIC, LITERAL, User:alice, *, READ, ALLOW). */
public record AclEntry(
        String resourceType,
        String resourceName,
        String patternType,
        String principal,
        String host,
        String operation,
        String permission) {}
