package io.varve.http;

/** Answers the requests for one path. Runs on the HTTP listener's worker thread, never on a Netty event loop. */
@FunctionalInterface
public interface HttpRoute {
    HttpResponse handle(HttpRequest request) throws Exception;
}
