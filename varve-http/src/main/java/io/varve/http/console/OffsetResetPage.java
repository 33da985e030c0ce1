package io.varve.http.console;

import static io.varve.http.console.Html.esc;
import static io.varve.http.console.Layout.field;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.OffsetReset;
import java.util.List;
import java.util.Locale;

/**
 * {@code /console/group/reset?group=}: moves a group's committed offsets on a topic to the earliest or latest
 * offset, an offset, or the first offset at a time, as {@code kafka-consumer-groups --reset-offsets --execute} does,
 * and like it only while the group is empty (else 400 with the tool's message).
 */
final class OffsetResetPage {
    static final String PATH = "/console/group/reset";

    /** As the console's own principal: each handler acts as its request's ({@link ConsoleActions#actingAs}). */
    private final ConsoleActions consoleActions;

    OffsetResetPage(ConsoleActions actions) {
        this.consoleActions = actions;
    }

    void routes(HttpServer server) {
        server.route(PATH, this::form).routePost(PATH, this::reset);
    }

    private HttpResponse form(HttpRequest r) {
        String group = field(r, "group");
        if (group.isEmpty()) {
            return HttpResponse.error(400, "The group parameter is required: " + PATH + "?group=GROUP");
        }
        StringBuilder b =
                new StringBuilder("<h1>Reset offsets of ").append(esc(group)).append("</h1>");
        b.append("<form id=reset method=post action=\"")
                .append(PATH)
                .append("\"><fieldset><input type=hidden name=group value=\"")
                .append(esc(group))
                .append("\"><label>Topic <input name=topic required value=\"")
                .append(esc(field(r, "topic")))
                .append("\"></label> <label>To <select name=to>");
        for (OffsetReset.To to : OffsetReset.To.values()) {
            String name = to.name().toLowerCase(Locale.ROOT);
            b.append("<option value=").append(name).append('>').append(name).append("</option>");
        }
        b.append("</select></label> <label>Offset or time <input name=at placeholder=\"42 or 2026-12-01T17:30:00\">"
                + "</label> <button type=submit>Reset</button></fieldset></form>"
                + "<p><small>Only an empty group (no member consuming) can be reset, as with kafka-consumer-groups."
                + " An offset outside a partition's range is moved to its nearest end; a time later than every record"
                + " moves to the end.</small></p>");
        return Layout.page("Reset offsets of " + group, b.toString());
    }

    private HttpResponse reset(HttpRequest r) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        String group = field(r, "group");
        String topic = field(r, "topic");
        String title = "Reset offsets of " + group;
        if (group.isEmpty() || topic.isEmpty()) {
            return Layout.badRequest(title, "A reset needs the group and the topic.");
        }
        OffsetReset to;
        try {
            to = target(field(r, "to"), field(r, "at"));
        } catch (IllegalArgumentException e) {
            return Layout.badRequest(title, e.getMessage());
        }
        List<OffsetReset.Moved> moved;
        try {
            moved = Layout.await(actions.resetOffsets(group, topic, to));
        } catch (ConsoleFailure f) {
            return Layout.refused(title, f);
        }
        StringBuilder b = new StringBuilder("<h1>").append(esc(title)).append("</h1>");
        b.append("<p class=ok id=done>The offsets of ")
                .append(esc(group))
                .append(" on ")
                .append(esc(topic))
                .append(" were reset to ")
                .append(to.to().name().toLowerCase(Locale.ROOT))
                .append(
                        ".</p><table id=moved><thead><tr><th>Partition</th><th>New committed offset</th></tr></thead><tbody>");
        for (OffsetReset.Moved m : moved) {
            b.append("<tr><td>")
                    .append(m.partition())
                    .append("</td><td>")
                    .append(m.offset())
                    .append("</td></tr>");
        }
        b.append("</tbody></table><p><a href=\"/console/groups\">Consumer groups</a></p>");
        return Layout.page(title, b.toString());
    }

    static OffsetReset target(String to, String at) {
        switch (to.isEmpty() ? "earliest" : to) {
            case "earliest":
                return new OffsetReset(OffsetReset.To.EARLIEST, 0);
            case "latest":
                return new OffsetReset(OffsetReset.To.LATEST, 0);
            case "offset":
                try {
                    long offset = Long.parseLong(at);
                    if (offset < 0) {
                        throw new NumberFormatException();
                    }
                    return new OffsetReset(OffsetReset.To.OFFSET, offset);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("The offset must be a number from 0 up, not '" + at + "'.");
                }
            case "timestamp":
                return new OffsetReset(OffsetReset.To.TIMESTAMP, MessageBrowser.timestamp(at));
            default:
                throw new IllegalArgumentException(
                        "to must be earliest, latest, offset or timestamp, not '" + to + "'.");
        }
    }
}
