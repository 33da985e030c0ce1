package io.varve.http.view;

/**
 * One config of a resource as DescribeConfigs shows it.
 *
 * @param value   null when sensitive
 * @param source  Kafka's config source name (DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG…)
 */
public record ConfigEntry(String name, String value, String source, boolean readOnly, boolean sensitive) {}
