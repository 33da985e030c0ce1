package io.varve.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A complete response: status, content type, body, and any further headers. */
public record HttpResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
    public static final String JSON = "application/json; charset=utf-8";

    public HttpResponse(int status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    public static HttpResponse json(int status, String body) {
        return new HttpResponse(status, JSON, body.getBytes(StandardCharsets.UTF_8));
    }

    /** A JSON error body: {@code {"error_code":status,"message":"…"}}. */
    public static HttpResponse error(int status, String message) {
        return json(status, "{\"error_code\":" + status + ",\"message\":\"" + Json.escape(message) + "\"}");
    }

    /** 303 See Other to {@code location}: where a form's POST sends the browser. */
    public static HttpResponse seeOther(String location) {
        return new HttpResponse(303, "text/plain; charset=utf-8", new byte[0], Map.of("Location", location));
    }
}
