package io.varve.http.console;

import static io.varve.http.console.Html.bytes;
import static io.varve.http.console.Html.esc;
import static io.varve.http.console.Layout.fragmentOrPage;
import static io.varve.http.console.Layout.page;
import static io.varve.http.console.Layout.row;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.metrics.TopicTraffic;
import io.varve.http.view.BrokerView;
import io.varve.http.view.ClusterView;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.ConsoleAuthorization;
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

    private final BrokerView view;
    private final ConsoleActions actions;
    /** Samples at most every 15 s: an hour is {@link LagHistory#MAX_SAMPLES}. */
    private final LagHistory history = new LagHistory(14_000);

    private final LongSupplier clockMs;

    private final ThroughputPage throughput;

    public ConsolePages(BrokerView view, ConsoleActions actions, TopicTraffic traffic, LongSupplier clockMs) {
        this.view = view;
        this.actions = actions;
        this.clockMs = clockMs;
        this.throughput = new ThroughputPage(traffic, clockMs);
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
        new ConfigPage(actions).routes(server);
        new OffsetResetPage(actions).routes(server);
        new MessageBrowser(actions).routes(server);
        new SecurityPages(actions).routes(server);
        throughput.routes(server);
    }

    /** Samples every group's summed lag for the chart; called periodically by the listener. */
    public void sampleLag() throws Exception {
        sample(lags());
    }

    /** Samples the bytes in and out of every topic for the throughput charts; called periodically by the listener. */
    public void sampleTraffic() {
        throughput.sample();
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
        // CreateTopics' check: CREATE on the cluster or on the topic
        ConsoleAuthorization acl = view.authorization();
        if (!acl.allowed(r.principal(), r.remoteHost(), "CREATE", "CLUSTER", "kafka-cluster")
                && !acl.allowed(r.principal(), r.remoteHost(), "CREATE", "TOPIC", name)) {
            return forbidden(r, "create topic " + name);
        }
        String error = actions.actingAs(r.principal(), r.remoteHost())
                .createTopic(name, partitions)
                .get(Layout.ACTION_TIMEOUT_MS, TimeUnit.MILLISECONDS);
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
        if (!view.authorization().allowed(r.principal(), r.remoteHost(), "DELETE", "TOPIC", name)) {
            return forbidden(r, "delete topic " + name);
        }
        String error = actions.actingAs(r.principal(), r.remoteHost())
                .deleteTopic(name)
                .get(Layout.ACTION_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (error != null) {
            return page(
                    "Topics",
                    "<h1>Topics</h1><p class=bad>Topic " + esc(name) + " was not deleted: " + esc(error) + "</p>",
                    400);
        }
        return HttpResponse.seeOther("/console/topics");
    }

    private HttpResponse forbidden(HttpRequest r, String what) {
        return page(
                "Topics",
                "<h1>Topics</h1><p class=bad>" + esc(r.principal()) + " may not " + esc(what)
                        + " (the broker's ACLs decide, as for its Kafka requests).</p>",
                403);
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
        String encoded = esc(java.net.URLEncoder.encode(name, StandardCharsets.UTF_8));
        StringBuilder b = new StringBuilder("<h1>Topic ").append(esc(name)).append("</h1>");
        b.append("<p><a id=configs href=\"")
                .append(ConfigPage.PATH)
                .append("?name=")
                .append(encoded)
                .append("\">Configs</a> · <a id=messages href=\"/console/messages?topic=")
                .append(encoded)
                .append("\">Messages</a> · <a href=\"/console/throughput\">Throughput</a></p>");
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
                    .append(" · <a class=reset href=\"")
                    .append(OffsetResetPage.PATH)
                    .append("?group=")
                    .append(esc(java.net.URLEncoder.encode(group, StandardCharsets.UTF_8)))
                    .append("\">reset offsets</a></small></h2>");
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
                double[] lag = new double[samples.size()];
                for (int i = 0; i < lag.length; i++) {
                    lag[i] = samples.get(i).lag();
                }
                charts.append(Charts.chart(
                        "lag-" + group,
                        "Lag of " + group + " (last hour)",
                        Charts.times(samples, LagHistory.Sample::timeMs),
                        new String[] {"lag"},
                        new double[][] {lag}));
            }
            charts.append(Charts.script());
        }
        return fragmentOrPage(r, "Consumer groups", charts.toString(), table.toString());
    }
}
