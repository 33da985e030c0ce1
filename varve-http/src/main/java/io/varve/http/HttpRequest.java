package io.varve.http;

import java.util.Map;

/**
 * A request as a route sees it: the path without the query, the query parameters, the Accept header, for a POST the
 * fields of its {@code application/x-www-form-urlencoded} body (empty otherwise), and who sent it from where: the
 * client's address and the principal the
 * listener authenticated ({@code User:alice}; {@code User:ANONYMOUS} on a listener without authentication), for the
 * same ACL checks as the Kafka API ({@link io.varve.http.view.ConsoleAuthorization}).
 */
public record HttpRequest(
        String method,
        String path,
        Map<String, String> query,
        String accept,
        Map<String, String> form,
        String principal,
        String remoteHost) {
    public HttpRequest(String method, String path, Map<String, String> query, String accept) {
        this(method, path, query, accept, Map.of());
    }

    public HttpRequest(String method, String path, Map<String, String> query, String accept, Map<String, String> form) {
        this(method, path, query, accept, form, RequestAuthentication.ANONYMOUS, "127.0.0.1");
    }
}
