package io.varve.http.console;

import static io.varve.http.console.Html.esc;

import java.util.List;

/**
 * Time charts over the last hour, drawn by uPlot in the browser: each chart is a {@code div.chart} carrying its title,
 * its times and up to two series as data attributes, and one script draws every chart of the page.
 */
final class Charts {
    private Charts() {}

    /**
     * A chart of {@code labels.length} series (one or two) over {@code timesMs}; {@code series[s][i]} is series
     * {@code s} at time {@code i}.
     */
    static String chart(String id, String title, long[] timesMs, String[] labels, double[][] series) {
        StringBuilder xs = new StringBuilder();
        for (long t : timesMs) {
            xs.append(xs.length() == 0 ? "" : ",").append(t / 1000);
        }
        StringBuilder b = new StringBuilder("<div class=chart id=\"")
                .append(esc(id))
                .append("\" data-title=\"")
                .append(esc(title))
                .append("\" data-x=\"")
                .append(xs)
                .append('"');
        for (int s = 0; s < labels.length; s++) {
            StringBuilder ys = new StringBuilder();
            for (double v : series[s]) {
                ys.append(ys.length() == 0 ? "" : ",").append(Math.round(v));
            }
            b.append(" data-label")
                    .append(s)
                    .append("=\"")
                    .append(esc(labels[s]))
                    .append('"');
            b.append(" data-y").append(s).append("=\"").append(ys).append('"');
        }
        return b.append("></div>").toString();
    }

    static <T> long[] times(List<T> samples, java.util.function.ToLongFunction<T> time) {
        long[] out = new long[samples.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = time.applyAsLong(samples.get(i));
        }
        return out;
    }

    /** The script that draws every {@code div.chart}: once per page, after the charts. */
    static String script() {
        return "<script src=\"/console/assets/uPlot.iife.min.js\"></script><script>"
                + "document.querySelectorAll('.chart').forEach(function (el) {"
                + "function nums(s) { return s ? s.split(',').map(Number) : []; }"
                + "var colours = ['#2a6', '#36c'];"
                + "var data = [nums(el.dataset.x)]; var series = [{}];"
                + "for (var s = 0; el.dataset['label' + s] !== undefined; s++) {"
                + " data.push(nums(el.dataset['y' + s]));"
                + " series.push({label: el.dataset['label' + s], stroke: colours[s], points: {show: true}}); }"
                + "new uPlot({title: el.dataset.title, width: 800, height: 220,"
                + " scales: {x: {time: true, range: function () { var n = Date.now() / 1000; return [n - 3600, n]; }}},"
                + " axes: [{}, {size: 80}], series: series}, data, el);});"
                + "</script>";
    }
}
