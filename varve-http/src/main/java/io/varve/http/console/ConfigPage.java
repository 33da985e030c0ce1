package io.varve.http.console;

import static io.varve.http.console.Html.esc;
import static io.varve.http.console.Layout.field;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.view.ConfigEntry;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleFailure;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code /console/topic/configs?name=}: every config of a topic with its source, and a form per config to set it or
 * to remove the topic's override. A change is an IncrementalAlterConfigs as a client would send it, so the
 * controller's validation answers it: a bad value comes back as 400 with the controller's message.
 */
final class ConfigPage {
    static final String PATH = "/console/topic/configs";

    /** As the console's own principal: each handler acts as its request's ({@link ConsoleActions#actingAs}). */
    private final ConsoleActions consoleActions;

    ConfigPage(ConsoleActions actions) {
        this.consoleActions = actions;
    }

    void routes(HttpServer server) {
        server.route(PATH, this::show).routePost(PATH, this::change);
    }

    private HttpResponse show(HttpRequest r) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        String topic = field(r, "name");
        if (topic.isEmpty()) {
            return HttpResponse.error(400, "The name parameter is required: " + PATH + "?name=TOPIC");
        }
        String title = "Configs of " + topic;
        List<ConfigEntry> configs;
        try {
            configs = Layout.await(actions.topicConfigs(topic));
        } catch (ConsoleFailure f) {
            return Layout.refused(title, f);
        }
        StringBuilder b =
                new StringBuilder("<h1>Configs of topic ").append(esc(topic)).append("</h1>");
        b.append("<p><a href=\"/console/topic?name=")
                .append(esc(encode(topic)))
                .append("\">Partitions</a> · <a href=\"/console/messages?topic=")
                .append(esc(encode(topic)))
                .append("\">Messages</a></p>");
        b.append("<table id=configs><thead><tr><th>Key</th><th>Value</th><th>Source</th><th></th></tr></thead><tbody>");
        for (ConfigEntry c : configs) {
            boolean override = c.source().equals("DYNAMIC_TOPIC_CONFIG");
            b.append("<tr data-key=\"")
                    .append(esc(c.name()))
                    .append("\"><td>")
                    .append(esc(c.name()))
                    .append("</td><td class=value>")
                    .append(c.sensitive() ? "<i>hidden</i>" : esc(c.value() == null ? "" : c.value()))
                    .append("</td><td>")
                    .append(esc(c.source()))
                    .append("</td><td>");
            if (!c.readOnly() && !c.sensitive()) {
                b.append("<form class=inline method=post action=\"")
                        .append(PATH)
                        .append("\"><input type=hidden name=name value=\"")
                        .append(esc(topic))
                        .append("\"><input type=hidden name=key value=\"")
                        .append(esc(c.name()))
                        .append("\"><input name=value size=18 aria-label=\"new value\" value=\"")
                        .append(esc(c.value() == null ? "" : c.value()))
                        .append("\"> <button type=submit name=op value=set class=set>Set</button>");
                if (override) {
                    b.append(" <button type=submit name=op value=delete class=reset>Use default</button>");
                }
                b.append("</form>");
            }
            b.append("</td></tr>");
        }
        b.append("</tbody></table>");
        return Layout.page(title, b.toString());
    }

    private HttpResponse change(HttpRequest r) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        String topic = field(r, "name");
        String key = field(r, "key");
        String op = field(r, "op").isEmpty() ? "set" : field(r, "op");
        String title = "Configs of " + topic;
        if (topic.isEmpty() || key.isEmpty()) {
            return Layout.badRequest(title, "A config change needs the topic (name) and the key.");
        }
        if (!op.equals("set") && !op.equals("delete")) {
            return Layout.badRequest(title, "op must be set or delete, not '" + op + "'.");
        }
        String value = op.equals("set") ? r.form().getOrDefault("value", "") : null;
        try {
            Layout.await(actions.alterTopicConfig(topic, key, value));
        } catch (ConsoleFailure f) {
            return Layout.refused(title, f);
        }
        return HttpResponse.seeOther(PATH + "?name=" + encode(topic));
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
