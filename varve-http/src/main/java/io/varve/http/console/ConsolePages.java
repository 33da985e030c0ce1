package io.varve.http.console;

import static io.varve.http.console.Html.bytes;
import static io.varve.http.console.Html.esc;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.view.BrokerView;
import io.varve.http.view.ClusterView;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.CoordinatorView;
import io.varve.http.view.GroupLag;
import io.varve.http.view.PartitionView;
import io.varve.http.view.Readiness;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The console's pages, rendered on the server from the {@link BrokerView}: {@code /console} (the node and the
 * cluster), {@code /console/topics} (sizes local and remote, offsets), {@code /console/topic?name=} (its partitions),
 * {@code /console/groups} (lag per partition and a chart of each group's summed lag over the last hour). Tables
 * refresh themselves every 5 s through htmx fragments ({@code ?fragment=1}).
 */
public final class ConsolePages {
    private static final long LAG_TIMEOUT_MS = 2000;

    private static final long ACTION_TIMEOUT_MS = 30_000;

    private final BrokerView view;
    private final ConsoleActions actions;
    /** Samples at most every 15 s: an hour is {@link LagHistory#MAX_SAMPLES}. */
    private final LagHistory history = new LagHistory(14_000);

    private final LongSupplier clockMs;

    public ConsolePages(BrokerView view, ConsoleActions actions, LongSupplier clockMs) {
        this.view = view;
        this.actions = actions;
        this.clockMs = clockMs;
    }

    /** Adds the console's routes to {@code server}. */
    public void routes(HttpServer server) {
        server.route("/console", this::overview)
                .route("/console/", this::overview)
                .route("/console/topics", this::topics)
                .route("/console/topic", this::topic)
                .route("/console/groups", this::groups)
                .routePost("/console/topics/create", this::createTopic)
                .routePost("/console/topics/delete", this::deleteTopic)
                .routePrefix(Assets.PREFIX, Assets::serve);
    }

    /** Samples every group's summed lag for the chart; called periodically by the listener. */
    public void sampleLag() throws Exception {
        sample(lags());
    }

    private void sample(List<GroupLag> lags) {
        Map<String, Long> sums = new HashMap<>();
        for (GroupLag l : lags) {
            sums.merge(l.group(), Math.max(0, l.lag()), Long::sum);
        }
        history.add(clockMs.getAsLong(), sums);
    }

    private List<GroupLag> lags() throws Exception {
        return view.consumerLag().get(LAG_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private HttpResponse overview(HttpRequest r) {
        ClusterView c = view.cluster();
        Readiness ready = view.readiness();
        CoordinatorView coordinators = view.coordinators();
        StringBuilder b = new StringBuilder();
        b.append("<h1>Node ").append(view.nodeId()).append("</h1>");
        b.append("<table class=kv>");
        row(b, "Cluster id", esc(view.clusterId()));
        row(
                b,
                "Ready",
                ready.ready()
                        ? "<span class=ok>yes</span>"
                        : "<span class=bad>no: " + esc(String.join("; ", ready.reasons())) + "</span>");
        row(b, "Active controller", c.activeController() ? "this node" : "another node");
        row(b, "Metadata offset", Long.toString(c.metadataOffset()));
        row(b, "Brokers", Integer.toString(c.brokers()));
        row(b, "Topics", Integer.toString(c.topics()));
        row(
                b,
                "Partitions",
                c.partitions()
                        + (c.offlinePartitions() > 0
                                ? " (<span class=bad>" + c.offlinePartitions() + " offline</span>)"
                                : ""));
        row(b, "Consumer groups", esc(coordinators.groupsByState().toString()));
        b.append("</table>");
        return page("Overview", b.toString());
    }

    private HttpResponse topics(HttpRequest r) {
        Map<String, long[]> byTopic = new TreeMap<>();
        for (PartitionView p : view.partitions()) {
            long[] t = byTopic.computeIfAbsent(p.topic(), k -> new long[5]);
            t[0]++;
            t[1] += p.leader() ? 1 : 0;
            t[2] += p.sizeBytes();
            t[3] += p.remoteSizeBytes();
            t[4] += p.logEndOffset() - p.logStartOffset();
        }
        StringBuilder table = new StringBuilder(
                "<div id=topics hx-get=\"/console/topics?fragment=1\" hx-trigger=\"every 5s\" hx-swap=outerHTML>");
        table.append(
                "<table><thead><tr><th>Topic</th><th>Partitions here</th><th>Led here</th><th>Local size</th><th>Remote size</th><th>Records</th><th></th></tr></thead><tbody>");
        byTopic.forEach((name, t) -> table.append("<tr><td><a href=\"/console/topic?name=")
                .append(esc(java.net.URLEncoder.encode(name, StandardCharsets.UTF_8)))
                .append("\">")
                .append(esc(name))
                .append("</a></td><td>")
                .append(t[0])
                .append("</td><td>")
                .append(t[1])
                .append("</td><td>")
                .append(bytes(t[2]))
                .append("</td><td>")
                .append(bytes(t[3]))
                .append("</td><td>")
                .append(t[4])
                .append("</td><td>")
                .append(name.startsWith("__") ? "internal" : deleteButton(name))
                .append("</td></tr>"));
        table.append("</tbody></table></div>");
        String create = "<form id=create method=post action=\"/console/topics/create\">"
                + "<input name=name placeholder=\"new topic\" required> <input name=partitions type=number min=1 placeholder=\"partitions\">"
                + " <button type=submit>Create topic</button></form>";
        return fragmentOrPage(r, "Topics", "<h1>Topics</h1>" + create, table.toString());
    }

    private static String deleteButton(String topic) {
        return "<form method=post action=\"/console/topics/delete\""
                + " onsubmit=\"return confirm('Delete topic ' + this.elements['name'].value + '?')\">"
                + "<input type=hidden name=name value=\"" + esc(topic) + "\">"
                + "<button type=submit class=delete>Delete</button></form>";
    }

    private HttpResponse createTopic(HttpRequest r) throws Exception {
        String name = r.form().getOrDefault("name", "").trim();
        if (name.isEmpty()) {
            return page("Topics", "<h1>Topics</h1><p class=bad>A topic needs a name.</p>", 400);
        }
        int partitions;
        try {
            String p = r.form().getOrDefault("partitions", "").trim();
            partitions = p.isEmpty() ? -1 : Integer.parseInt(p);
        } catch (NumberFormatException e) {
            partitions = 0;
        }
        if (partitions == 0 || partitions < -1 || partitions > 100_000) {
            return page("Topics", "<h1>Topics</h1><p class=bad>Partitions must be a number from 1 to 100000.</p>", 400);
        }
        String error = actions.createTopic(name, partitions).get(ACTION_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (error != null) {
            return page(
                    "Topics",
                    "<h1>Topics</h1><p class=bad>Topic " + esc(name) + " was not created: " + esc(error) + "</p>",
                    400);
        }
        return HttpResponse.seeOther("/console/topics");
    }

    private HttpResponse deleteTopic(HttpRequest r) throws Exception {
        String name = r.form().getOrDefault("name", "").trim();
        if (name.isEmpty()) {
            return page("Topics", "<h1>Topics</h1><p class=bad>Which topic? The form names none.</p>", 400);
        }
        String error = actions.deleteTopic(name).get(ACTION_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (error != null) {
            return page(
                    "Topics",
                    "<h1>Topics</h1><p class=bad>Topic " + esc(name) + " was not deleted: " + esc(error) + "</p>",
                    400);
        }
        return HttpResponse.seeOther("/console/topics");
    }

    private HttpResponse topic(HttpRequest r) {
        String name = r.query().get("name");
        if (name == null || name.isEmpty()) {
            return HttpResponse.error(400, "The name parameter is required: /console/topic?name=TOPIC");
        }
        List<PartitionView> partitions = view.partitions().stream()
                .filter(p -> p.topic().equals(name))
                .sorted(Comparator.comparingInt(PartitionView::partition))
                .toList();
        if (partitions.isEmpty()) {
            return page(
                    "Topic " + name,
                    "<h1>" + esc(name) + "</h1><p class=bad>This node holds no partition of this topic.</p>",
                    404);
        }
        StringBuilder b = new StringBuilder("<h1>Topic ").append(esc(name)).append("</h1>");
        b.append(
                "<table><thead><tr><th>Partition</th><th>Leader here</th><th>Replicas</th><th>ISR</th><th>Log start</th>"
                        + "<th>Log end</th><th>High watermark</th><th>Segments</th><th>Local size</th><th>Remote size</th><th>Upload lag</th></tr></thead><tbody>");
        for (PartitionView p : partitions) {
            b.append("<tr><td>")
                    .append(p.partition())
                    .append("</td><td>")
                    .append(p.leader() ? "yes" : "no")
                    .append("</td><td>")
                    .append(p.replicas())
                    .append("</td><td>")
                    .append(p.inSyncReplicas())
                    .append("</td><td>")
                    .append(p.logStartOffset())
                    .append("</td><td>")
                    .append(p.logEndOffset())
                    .append("</td><td>")
                    .append(p.highWatermark())
                    .append("</td><td>")
                    .append(p.segments())
                    .append("</td><td>")
                    .append(bytes(p.sizeBytes()))
                    .append("</td><td>")
                    .append(bytes(p.remoteSizeBytes()))
                    .append("</td><td>")
                    .append(bytes(p.uploadLagBytes()))
                    .append("</td></tr>");
        }
        b.append("</tbody></table>");
        return page("Topic " + name, b.toString());
    }

    private HttpResponse groups(HttpRequest r) throws Exception {
        List<GroupLag> lags = new ArrayList<>(lags());
        sample(lags);
        lags.sort(Comparator.comparing(GroupLag::group)
                .thenComparing(GroupLag::topic)
                .thenComparingInt(GroupLag::partition));
        Map<String, List<GroupLag>> byGroup = new TreeMap<>();
        for (GroupLag l : lags) {
            byGroup.computeIfAbsent(l.group(), g -> new ArrayList<>()).add(l);
        }
        StringBuilder table = new StringBuilder(
                "<div id=groups hx-get=\"/console/groups?fragment=1\" hx-trigger=\"every 5s\" hx-swap=outerHTML>");
        if (byGroup.isEmpty()) {
            table.append("<p>No group has committed offsets on this node.</p>");
        }
        byGroup.forEach((group, rows) -> {
            long sum = rows.stream().mapToLong(l -> Math.max(0, l.lag())).sum();
            table.append("<h2>")
                    .append(esc(group))
                    .append(" <small>lag ")
                    .append(sum)
                    .append("</small></h2>");
            table.append(
                    "<table><thead><tr><th>Topic</th><th>Partition</th><th>Committed</th><th>Log end</th><th>Lag</th><th>Time lag (s)</th></tr></thead><tbody>");
            for (GroupLag l : rows) {
                table.append("<tr><td>")
                        .append(esc(l.topic()))
                        .append("</td><td>")
                        .append(l.partition())
                        .append("</td><td>")
                        .append(l.committedOffset())
                        .append("</td><td>")
                        .append(l.logEndOffset() < 0 ? "?" : Long.toString(l.logEndOffset()))
                        .append("</td><td>")
                        .append(l.lag() < 0 ? "?" : Long.toString(l.lag()))
                        .append("</td><td>")
                        .append(String.format(java.util.Locale.ROOT, "%.1f", l.lagSeconds()))
                        .append("</td></tr>");
            }
            table.append("</tbody></table>");
        });
        table.append("</div>");
        StringBuilder charts = new StringBuilder("<h1>Consumer groups</h1>");
        if (!"1".equals(r.query().get("fragment"))) {
            for (String group : byGroup.keySet()) {
                List<LagHistory.Sample> samples = history.samples(group);
                StringBuilder xs = new StringBuilder();
                StringBuilder ys = new StringBuilder();
                for (LagHistory.Sample s : samples) {
                    xs.append(xs.length() == 0 ? "" : ",").append(s.timeMs() / 1000);
                    ys.append(ys.length() == 0 ? "" : ",").append(s.lag());
                }
                charts.append("<div class=chart data-group=\"")
                        .append(esc(group))
                        .append("\" data-x=\"")
                        .append(xs)
                        .append("\" data-y=\"")
                        .append(ys)
                        .append("\"></div>");
            }
            charts.append("<script src=\"/console/assets/uPlot.iife.min.js\"></script><script>")
                    .append("document.querySelectorAll('.chart').forEach(function (el) {")
                    .append("var xs = el.dataset.x ? el.dataset.x.split(',').map(Number) : [];")
                    .append("var ys = el.dataset.y ? el.dataset.y.split(',').map(Number) : [];")
                    .append("new uPlot({title: 'Lag of ' + el.dataset.group + ' (last hour)', width: 800, height: 220,")
                    .append("scales: {x: {time: true, range: function () { var n = Date.now() / 1000;")
                    .append(" return [n - 3600, n]; }}},")
                    .append("series: [{}, {label: 'lag', stroke: '#2a6', points: {show: true}}]}, [xs, ys], el);});")
                    .append("</script>");
        }
        return fragmentOrPage(r, "Consumer groups", charts.toString(), table.toString());
    }

    private HttpResponse fragmentOrPage(HttpRequest r, String title, String head, String fragment) {
        if ("1".equals(r.query().get("fragment"))) {
            return new HttpResponse(200, "text/html; charset=utf-8", fragment.getBytes(StandardCharsets.UTF_8));
        }
        return page(title, head + fragment);
    }

    private static void row(StringBuilder b, String key, String valueHtml) {
        b.append("<tr><th>")
                .append(esc(key))
                .append("</th><td>")
                .append(valueHtml)
                .append("</td></tr>");
    }

    private HttpResponse page(String title, String body) {
        return page(title, body, 200);
    }

    private HttpResponse page(String title, String body, int status) {
        String html = "<!doctype html><html lang=en><head><meta charset=utf-8><title>" + esc(title) + " · Varve</title>"
                + "<link rel=icon href=\"data:,\"><link rel=stylesheet href=\"/console/assets/uPlot.min.css\">"
                + "<script src=\"/console/assets/htmx.min.js\"></script><style>"
                + "body{font-family:system-ui,sans-serif;margin:0;color:#222}nav{background:#1d3b53;padding:.6em 1em}"
                + "nav a{color:#fff;margin-right:1.5em;text-decoration:none}main{padding:1em 2em}"
                + "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.3em .7em;text-align:left}"
                + "th{background:#f3f5f7}.ok{color:#197a33}.bad{color:#b00020}small{color:#666;font-weight:normal}"
                + "</style></head><body><nav><a href=\"/console\">Overview</a><a href=\"/console/topics\">Topics</a>"
                + "<a href=\"/console/groups\">Consumer groups</a><a href=\"/metrics\">Metrics</a></nav><main>"
                + body + "</main></body></html>";
        return new HttpResponse(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }
}
