package io.varve.bench.compare;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable twin of a run's markdown report ({@code bench/work/results-DATE.json}; with {@code --record}
 * also {@code bench/results/DATE.json}): every round's sample of every figure, with its unit and direction.
 *
 * <pre>{@code
 * {"format": 1, "label": "Run of 2026-12-01 22:48:02", "smoke": false, "about": {"git": "8ef28da", ...},
 *  "scenarios": [{"number": 1, "title": "Produce throughput ...", "figures": [
 *      {"name": "produce throughput", "unit": "MiB/s", "better": "HIGHER", "kafka": [83.1, 89.0], "varve": [95.2, 99.8]}]}]}
 * }</pre>
 */
public final class RunJson {

    static final int FORMAT = 1;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private RunJson() {}

    public static String write(RunRecord run) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("format", FORMAT);
        root.put("label", run.label());
        root.put("smoke", run.smoke());
        ObjectNode about = root.putObject("about");
        run.about().entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> about.put(e.getKey(), e.getValue()));
        ArrayNode scenarios = root.putArray("scenarios");
        for (ScenarioRecord scenario : run.scenarios()) {
            ObjectNode s = scenarios.addObject();
            s.put("number", scenario.number());
            s.put("title", scenario.title());
            ArrayNode figures = s.putArray("figures");
            for (FigureRecord figure : scenario.figures()) {
                ObjectNode f = figures.addObject();
                f.put("name", figure.name());
                f.put("unit", figure.unit());
                if (figure.better() != null) {
                    f.put("better", figure.better().name());
                }
                figure.kafka().forEach(f.putArray("kafka")::add);
                figure.varve().forEach(f.putArray("varve")::add);
            }
        }
        try {
            return MAPPER.writeValueAsString(root) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads what {@link #write} wrote; a file of another format or a broken one is refused with why. */
    public static RunRecord read(String json) throws IOException {
        JsonNode root = MAPPER.readTree(json);
        if (root == null || !root.isObject() || root.path("format").asInt(-1) != FORMAT) {
            throw new IOException("not a bench/run results file of format " + FORMAT);
        }
        Map<String, String> about = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : root.path("about").properties()) {
            about.put(e.getKey(), e.getValue().asText());
        }
        List<ScenarioRecord> scenarios = new ArrayList<>();
        for (JsonNode s : root.path("scenarios")) {
            List<FigureRecord> figures = new ArrayList<>();
            for (JsonNode f : s.path("figures")) {
                String better = f.path("better").asText("");
                figures.add(new FigureRecord(
                        required(f, "name"),
                        f.path("unit").asText(""),
                        better.isEmpty() ? null : Better.valueOf(better),
                        numbers(f.path("kafka")),
                        numbers(f.path("varve"))));
            }
            if (!s.path("number").canConvertToInt()) {
                throw new IOException("a scenario without a number");
            }
            scenarios.add(
                    new ScenarioRecord(s.path("number").asInt(), s.path("title").asText(""), figures));
        }
        return new RunRecord(required(root, "label"), root.path("smoke").asBoolean(false), about, scenarios);
    }

    private static String required(JsonNode node, String field) throws IOException {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IOException("results file: \"" + field + "\" missing");
        }
        return value.asText();
    }

    private static List<Double> numbers(JsonNode array) throws IOException {
        List<Double> values = new ArrayList<>();
        for (JsonNode value : array) {
            if (!value.isNumber()) {
                throw new IOException("results file: a sample that is not a number: " + value);
            }
            values.add(value.asDouble());
        }
        return values;
    }
}
