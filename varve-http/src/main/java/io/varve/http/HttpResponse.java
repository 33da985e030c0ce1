package io.varve.http;

import java.nio.charset.StandardCharsets;

/** A complete response: status, content type and body. */
public record HttpResponse(int status, String contentType, byte[] body) {
    public static final String JSON = "application/json; charset=utf-8";

    public static HttpResponse json(int status, String body) {
        return new HttpResponse(status, JSON, body.getBytes(StandardCharsets.UTF_8));
    }

    /** A JSON error body: {@code {"error_code":status,"message":"…"}}. */
    public static HttpResponse error(int status, String message) {
        return json(status, "{\"error_code\":" + status + ",\"message\":\"" + Json.escape(message) + "\"}");
    }
}
