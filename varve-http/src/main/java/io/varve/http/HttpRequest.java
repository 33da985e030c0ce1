package io.varve.http;

import java.util.Map;

/**
 * A request as a route sees it: the path without the query, the query parameters, the Accept header, and for a POST
 * the fields of its {@code application/x-www-form-urlencoded} body (empty otherwise).
 */
public record HttpRequest(
        String method, String path, Map<String, String> query, String accept, Map<String, String> form) {
    public HttpRequest(String method, String path, Map<String, String> query, String accept) {
        this(method, path, query, accept, Map.of());
    }
}
