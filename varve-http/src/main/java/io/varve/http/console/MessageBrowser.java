package io.varve.http.console;

import static io.varve.http.console.Html.esc;
import static io.varve.http.console.Layout.field;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.view.BrowseQuery;
import io.varve.http.view.BrowsedPartition;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleFailure;
import io.varve.http.view.Message;
import io.varve.http.view.SchemaDecoded;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * {@code /console/messages}: a topic's messages from an offset, a time or the end, as a read_committed consumer reads
 * them, with the partition, offset, timestamp, headers, key and value of each (JSON indented, long values cut with a
 * marker, {@link Payloads}). Filters on key, value and headers apply to the page read; each partition links to its
 * next page, so a large topic is read one bounded page at a time.
 */
final class MessageBrowser {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    /** As the console's own principal: each handler acts as its request's ({@link ConsoleActions#actingAs}). */
    private final ConsoleActions consoleActions;

    MessageBrowser(ConsoleActions actions) {
        this.consoleActions = actions;
    }

    void routes(HttpServer server) {
        server.route("/console/messages", this::messages);
    }

    private HttpResponse messages(HttpRequest r) throws Exception {
        ConsoleActions actions = consoleActions.actingAs(r.principal(), r.remoteHost());
        String topic = field(r, "topic");
        StringBuilder b = new StringBuilder("<h1>Messages</h1>");
        form(b, r);
        if (topic.isEmpty()) {
            return Layout.page("Messages", b.toString());
        }
        BrowseQuery query;
        try {
            query = query(r, topic);
        } catch (IllegalArgumentException e) {
            return Layout.badRequest("Messages", e.getMessage());
        }
        List<BrowsedPartition> read;
        try {
            read = Layout.await(actions.browse(query));
        } catch (ConsoleFailure f) {
            return Layout.refused("Messages", f);
        }
        String keyFilter = field(r, "key");
        String valueFilter = field(r, "value");
        String headerFilter = field(r, "header");
        int scanned = 0;
        int shown = 0;
        StringBuilder rows = new StringBuilder();
        StringBuilder status = new StringBuilder("<ul id=partitions>");
        for (BrowsedPartition p : read) {
            scanned += p.messages().size();
            for (Message m : p.messages()) {
                if (!matches(m, keyFilter, valueFilter, headerFilter)) {
                    continue;
                }
                shown++;
                row(rows, m);
            }
            status.append("<li>Partition ").append(p.partition()).append(": ");
            if (p.error() != null) {
                status.append("<span class=bad>").append(esc(p.error())).append("</span>");
            } else if (p.nextOffset() == p.startOffset()) {
                status.append("nothing from offset ")
                        .append(p.startOffset())
                        .append(" (end ")
                        .append(p.endOffset())
                        .append(')');
            } else {
                status.append("offsets ")
                        .append(p.startOffset())
                        .append("–")
                        .append(p.nextOffset() - 1)
                        .append(" of end ")
                        .append(p.endOffset());
            }
            if (p.error() == null && p.nextOffset() < p.endOffset()) {
                status.append(" <a class=next href=\"")
                        .append(esc(nextPage(r, topic, p)))
                        .append("\">next page →</a>");
            }
            status.append("</li>");
        }
        status.append("</ul>");
        b.append("<p id=summary>")
                .append(shown)
                .append(" of ")
                .append(scanned)
                .append(" messages read match the filters.</p>")
                .append(status);
        b.append("<table id=messages><thead><tr><th>Partition</th><th>Offset</th><th>Timestamp (UTC)</th><th>Key</th>"
                        + "<th>Headers</th><th>Value</th></tr></thead><tbody>")
                .append(rows)
                .append("</tbody></table>");
        return Layout.page("Messages of " + topic, b.toString());
    }

    private static BrowseQuery query(HttpRequest r, String topic) {
        String partitionText = field(r, "partition");
        int partition = partitionText.isEmpty() ? -1 : integer(partitionText, "partition", -1, Integer.MAX_VALUE);
        String limitText = field(r, "limit");
        int limit = limitText.isEmpty() ? DEFAULT_LIMIT : integer(limitText, "limit", 1, MAX_LIMIT);
        String from = field(r, "from").isEmpty() ? "end" : field(r, "from");
        String at = field(r, "at");
        return switch (from) {
            case "end" -> new BrowseQuery(topic, partition, BrowseQuery.From.END, 0, limit);
            case "offset" ->
                new BrowseQuery(
                        topic,
                        partition,
                        BrowseQuery.From.OFFSET,
                        at.isEmpty() ? 0 : integer(at, "offset", 0, Long.MAX_VALUE),
                        limit);
            case "timestamp" -> new BrowseQuery(topic, partition, BrowseQuery.From.TIMESTAMP, timestamp(at), limit);
            default -> throw new IllegalArgumentException("from must be end, offset or timestamp, not '" + from + "'.");
        };
    }

    /** Milliseconds since the epoch, an ISO-8601 instant, or a date and time in UTC (what a datetime input sends). */
    static long timestamp(String text) {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("A timestamp is required to read from a timestamp.");
        }
        if (text.chars().allMatch(Character::isDigit)) {
            return integer(text, "timestamp", 0, Long.MAX_VALUE);
        }
        try {
            return Instant.parse(text).toEpochMilli();
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC).toEpochMilli();
            } catch (DateTimeParseException e2) {
                throw new IllegalArgumentException("'" + text
                        + "' is not a timestamp: give milliseconds since the epoch or a date and time such as"
                        + " 2026-12-01T17:30:00 (UTC).");
            }
        }
    }

    private static long integer(String text, String name, long min, long max) {
        try {
            long v = Long.parseLong(text);
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number from " + min
                    + (max == Long.MAX_VALUE ? " up" : " to " + max) + ", not '" + text + "'.");
        }
    }

    private static int integer(String text, String name, int min, int max) {
        return (int) integer(text, name, (long) min, (long) max);
    }

    private static boolean matches(Message m, String key, String value, String header) {
        if (!Payloads.contains(m.key(), key) || !Payloads.contains(m.value(), value)) {
            return false;
        }
        if (header.isEmpty()) {
            return true;
        }
        for (Message.Header h : m.headers()) {
            if (Payloads.contains(h.key().getBytes(StandardCharsets.UTF_8), header)
                    || Payloads.contains(h.value(), header)
                    || Payloads.contains((h.key() + "=" + text(h.value())).getBytes(StandardCharsets.UTF_8), header)) {
                return true;
            }
        }
        return false;
    }

    private static String text(byte[] value) {
        return value == null ? "" : new String(value, StandardCharsets.UTF_8);
    }

    private void row(StringBuilder b, Message m) {
        b.append("<tr><td>")
                .append(m.partition())
                .append("</td><td>")
                .append(m.offset())
                .append("</td><td>")
                .append(m.timestampMs() < 0 ? "none" : esc(Instant.ofEpochMilli(m.timestampMs())))
                .append("</td><td>")
                .append(Payloads.html(m.key()))
                .append("</td><td>");
        for (Message.Header h : m.headers()) {
            b.append("<div><b>")
                    .append(esc(h.key()))
                    .append("</b>: ")
                    .append(Payloads.html(h.value()))
                    .append("</div>");
        }
        b.append("</td><td>");
        int schema = Payloads.schemaId(m.value());
        SchemaDecoded decoded = schema < 0 ? null : consoleActions.decodeSchemaValue(schema, m.value(), 5);
        if (schema >= 0) {
            b.append("<div class=schema><small>schema id ")
                    .append(schema)
                    .append(
                            decoded == null
                                    ? ""
                                    : decoded.type() == null ? ", not in the registry" : " (" + decoded.type() + ")")
                    .append("</small></div>");
        }
        if (decoded != null && decoded.json() != null) {
            byte[] json = decoded.json().getBytes(StandardCharsets.UTF_8);
            b.append(Payloads.html(json)).append("</td></tr>");
        } else {
            b.append(Payloads.html(m.value())).append("</td></tr>");
        }
    }

    private static String nextPage(HttpRequest r, String topic, BrowsedPartition p) {
        StringBuilder link = new StringBuilder("/console/messages?topic=")
                .append(encode(topic))
                .append("&partition=")
                .append(p.partition())
                .append("&from=offset&at=")
                .append(p.nextOffset());
        for (String keep : new String[] {"limit", "key", "value", "header"}) {
            String v = field(r, keep);
            if (!v.isEmpty()) {
                link.append('&').append(keep).append('=').append(encode(v));
            }
        }
        return link.toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void form(StringBuilder b, HttpRequest r) {
        String from = field(r, "from").isEmpty() ? "end" : field(r, "from");
        b.append("<form id=browse method=get action=\"/console/messages\"><fieldset>")
                .append("<label>Topic <input name=topic required value=\"")
                .append(esc(field(r, "topic")))
                .append("\"></label> <label>Partition <input name=partition type=number min=0 placeholder=all value=\"")
                .append(esc(field(r, "partition")))
                .append("\"></label> <label>From <select name=from>");
        for (String option : new String[] {"end", "offset", "timestamp"}) {
            b.append("<option")
                    .append(option.equals(from) ? " selected" : "")
                    .append('>')
                    .append(option)
                    .append("</option>");
        }
        b.append(
                        "</select></label> <label>Offset or time <input name=at placeholder=\"42 or 2026-12-01T17:30:00\" value=\"")
                .append(esc(field(r, "at")))
                .append("\"></label> <label>Per partition <input name=limit type=number min=1 max=")
                .append(MAX_LIMIT)
                .append(" value=\"")
                .append(esc(field(r, "limit").isEmpty() ? Integer.toString(DEFAULT_LIMIT) : field(r, "limit")))
                .append("\"></label><br><label>Key contains <input name=key value=\"")
                .append(esc(field(r, "key")))
                .append("\"></label> <label>Value contains <input name=value value=\"")
                .append(esc(field(r, "value")))
                .append("\"></label> <label>Header contains <input name=header placeholder=\"name=value\" value=\"")
                .append(esc(field(r, "header")))
                .append("\"></label> <button type=submit>Read</button></fieldset></form>")
                .append(String.format(
                        Locale.ROOT,
                        "<p><small>Read as a read_committed consumer; values over %,d bytes are cut.</small></p>",
                        Payloads.MAX_SHOWN_BYTES));
    }
}
