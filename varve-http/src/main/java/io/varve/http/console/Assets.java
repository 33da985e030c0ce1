package io.varve.http.console;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** The console's static files: a fixed list of files from the webjars on the classpath, nothing else. */
final class Assets {
    static final String PREFIX = "/console/assets/";

    private static final Map<String, String[]> FILES = Map.of(
            "htmx.min.js",
                    new String[] {"META-INF/resources/webjars/htmx.org/2.0.4/dist/htmx.min.js", "text/javascript"},
            "uPlot.iife.min.js",
                    new String[] {"META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", "text/javascript"},
            "uPlot.min.css", new String[] {"META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css", "text/css"});

    private Assets() {}

    static HttpResponse serve(HttpRequest request) throws IOException {
        String[] file = FILES.get(request.path().substring(PREFIX.length()));
        if (file == null) {
            return HttpResponse.error(404, "No such path: " + request.path());
        }
        try (InputStream in = Assets.class.getClassLoader().getResourceAsStream(file[0])) {
            if (in == null) {
                return HttpResponse.error(404, "No such path: " + request.path());
            }
            return new HttpResponse(200, file[1] + "; charset=utf-8", in.readAllBytes());
        }
    }
}
