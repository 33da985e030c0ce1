package io.varve.http.view;

import java.util.Map;

/**
 * One client-quota entity ({@code user=alice}, {@code client-id=app}, {@code user=<default>}) and its quota values.
 */
public record ClientQuota(String entity, Map<String, Double> values) {}
