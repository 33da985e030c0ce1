package io.varve.http;

import java.util.Map;

/** A request as a route sees it: the path without the query, the query parameters, and the Accept header. */
public record HttpRequest(String method, String path, Map<String, String> query, String accept) {}
