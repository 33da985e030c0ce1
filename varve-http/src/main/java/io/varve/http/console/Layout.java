package io.varve.http.console;

import static io.varve.http.console.Html.esc;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.view.ConsoleFailure;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The frame every console page shares (navigation, styles, scripts), and how a refused action becomes a page. */
final class Layout {
    static final long ACTION_TIMEOUT_MS = 30_000;

    private Layout() {}

    static HttpResponse page(String title, String body) {
        return page(title, body, 200);
    }

    static HttpResponse page(String title, String body, int status) {
        String html = "<!doctype html><html lang=en><head><meta charset=utf-8><title>" + esc(title) + " · Varve</title>"
                + "<link rel=icon href=\"data:,\"><link rel=stylesheet href=\"/console/assets/uPlot.min.css\">"
                + "<script src=\"/console/assets/htmx.min.js\"></script><style>"
                + "body{font-family:system-ui,sans-serif;margin:0;color:#222}nav{background:#1d3b53;padding:.6em 1em}"
                + "nav a{color:#fff;margin-right:1.5em;text-decoration:none}main{padding:1em 2em}"
                + "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.3em .7em;text-align:left;vertical-align:top}"
                + "th{background:#f3f5f7}.ok{color:#197a33}.bad{color:#b00020}small{color:#666;font-weight:normal}"
                + "pre{margin:0;white-space:pre-wrap;word-break:break-all;max-width:60em}.marker{color:#a15c00;font-style:italic}"
                + "form.inline{display:inline;margin:0}fieldset{border:1px solid #ccc;margin:.5em 0 1em;padding:.5em 1em}"
                + "</style></head><body><nav><a href=\"/console\">Overview</a><a href=\"/console/topics\">Topics</a>"
                + "<a href=\"/console/groups\">Consumer groups</a><a href=\"/console/messages\">Messages</a>"
                + "<a href=\"/console/security\">Security</a><a href=\"/console/throughput\">Throughput</a>"
                + "<a href=\"/metrics\">Metrics</a></nav><main>"
                + body + "</main></body></html>";
        return new HttpResponse(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse fragmentOrPage(HttpRequest r, String title, String head, String fragment) {
        if ("1".equals(r.query().get("fragment"))) {
            return new HttpResponse(200, "text/html; charset=utf-8", fragment.getBytes(StandardCharsets.UTF_8));
        }
        return page(title, head + fragment);
    }

    static void row(StringBuilder b, String key, String valueHtml) {
        b.append("<tr><th>")
                .append(esc(key))
                .append("</th><td>")
                .append(valueHtml)
                .append("</td></tr>");
    }

    /** The page of a request the node refused: its status (400, 403, 404…) and its message. */
    static HttpResponse refused(String title, ConsoleFailure failure) {
        return page(
                title,
                "<h1>" + esc(title) + "</h1><p class=bad id=error>" + esc(failure.getMessage()) + "</p>",
                failure.status());
    }

    /** A bad parameter: 400 with the reason. */
    static HttpResponse badRequest(String title, String reason) {
        return refused(title, new ConsoleFailure(400, reason));
    }

    /** Waits for an action; a {@link ConsoleFailure} comes out as itself, a timeout as a 504 one. */
    static <T> T await(CompletableFuture<T> action) throws Exception {
        try {
            return action.get(ACTION_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof ConsoleFailure f) {
                throw f;
            }
            throw e;
        } catch (TimeoutException e) {
            throw new ConsoleFailure(504, "The node did not answer within " + ACTION_TIMEOUT_MS / 1000 + " s.");
        }
    }

    /** A form field, trimmed; empty when absent. */
    static String field(HttpRequest r, String name) {
        String v = r.method().equals("POST") ? r.form().get(name) : r.query().get(name);
        return v == null ? "" : v.trim();
    }
}
