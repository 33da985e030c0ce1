package io.varve.bench.compare;

import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a run back from the markdown the harness wrote ({@code bench/RESULTS.md}, {@code bench/work/results-*.md}),
 * so that runs recorded before the JSON files existed can serve as a baseline. It takes each scenario's
 * {@code ### (N) title}, the units from its table, and the samples from its "every run" list
 * ({@code - figure: Kafka [a, b, c], Varve [x, y, z]}). The direction of a figure is not in the markdown: the run it is
 * compared with supplies it, else its unit ({@link #betterByUnit}). Samples there are rounded as the report prints
 * them.
 */
public final class RunMarkdown {

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*$");
    private static final Pattern SCENARIO = Pattern.compile("^###\\s+\\((\\d+)\\)\\s+(.*?)\\s*$");
    private static final Pattern SAMPLES = Pattern.compile("^- (.+): Kafka \\[(.*)], Varve \\[(.*)]\\s*$");

    private RunMarkdown() {}

    /**
     * The section under the heading that contains {@code headingQuery} (an exact heading wins over partial matches;
     * several partial ones are refused), or with a null query the first "Run of" heading of the text.
     */
    public static RunRecord parse(String markdown, String headingQuery) {
        List<String> lines = markdown.lines().toList();
        int start = findHeading(lines, headingQuery);
        Matcher heading = HEADING.matcher(lines.get(start));
        if (!heading.matches()) {
            throw new IllegalStateException("not a heading: " + lines.get(start));
        }
        int level = heading.group(1).length();
        String label = heading.group(2);
        List<ScenarioRecord> scenarios = new ArrayList<>();
        Integer number = null;
        String title = null;
        Map<String, String> units = new LinkedHashMap<>();
        List<FigureRecord> figures = new ArrayList<>();
        boolean fenced = false;
        for (int i = start + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches() && h.group(1).length() <= level) {
                break;
            }
            Matcher s = SCENARIO.matcher(line);
            if (s.matches()) {
                addScenario(scenarios, number, title, figures);
                number = Integer.parseInt(s.group(1));
                title = s.group(2);
                units.clear();
                figures = new ArrayList<>();
                continue;
            }
            if (number == null) {
                continue;
            }
            if (line.startsWith("| ") && !line.startsWith("| figure |")) {
                String[] cells = line.split("\\s\\|\\s");
                if (cells.length >= 2) {
                    units.putIfAbsent(cells[0].substring(2).trim(), cells[1].trim());
                }
                continue;
            }
            Matcher m = SAMPLES.matcher(line);
            if (m.matches()) {
                String name = m.group(1);
                String unit = units.getOrDefault(name, "");
                figures.add(new FigureRecord(
                        name, unit, betterByUnit(unit), numbers(m.group(2), line), numbers(m.group(3), line)));
            }
        }
        addScenario(scenarios, number, title, figures);
        if (scenarios.isEmpty()) {
            throw new IllegalArgumentException("\"" + label + "\" holds no scenario tables with their \"every run\" "
                    + "samples: name a \"Run of ...\" section bench/run wrote");
        }
        return new RunRecord(label, label.contains("SMOKE"), Map.of("source", "markdown"), scenarios);
    }

    /**
     * The direction the markdown does not carry, where the unit says it: a rate is better higher; time, memory,
     * descriptors and CPU cost lower. Null for the rest (percentages and counts go either way); the run compared with
     * a markdown section supplies the direction where it has one.
     */
    static Better betterByUnit(String unit) {
        if (unit.endsWith("/s")) {
            return Better.HIGHER;
        }
        return switch (unit) {
            case "ms", "s", "MiB", "KiB", "fds", "CPU s", "CPU s/GiB" -> Better.LOWER;
            default -> null;
        };
    }

    private static void addScenario(
            List<ScenarioRecord> scenarios, Integer number, String title, List<FigureRecord> figures) {
        if (number != null && !figures.isEmpty()) {
            scenarios.add(new ScenarioRecord(number, title, figures));
        }
    }

    private static int findHeading(List<String> lines, String query) {
        List<Integer> partial = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            Matcher h = HEADING.matcher(line);
            if (fenced || !h.matches()) {
                continue;
            }
            String text = h.group(2);
            if (query == null) {
                if (text.startsWith("Run of")) {
                    return i;
                }
            } else if (text.equals(query.trim())) {
                return i;
            } else if (text.contains(query.trim())) {
                partial.add(i);
            }
        }
        if (query == null) {
            throw new IllegalArgumentException("no \"Run of ...\" heading in the file");
        }
        if (partial.isEmpty()) {
            throw new IllegalArgumentException("no heading contains \"" + query + "\"");
        }
        if (partial.size() > 1) {
            StringBuilder names = new StringBuilder();
            for (int i : partial) {
                names.append("\n  ").append(lines.get(i));
            }
            throw new IllegalArgumentException(
                    partial.size() + " headings contain \"" + query + "\"; name one:" + names);
        }
        return partial.get(0);
    }

    private static List<Double> numbers(String list, String line) {
        List<Double> values = new ArrayList<>();
        for (String part : list.split(",")) {
            String value = part.trim();
            if (value.isEmpty()) {
                continue;
            }
            try {
                values.add(Double.parseDouble(value));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a sample that is not a number in: " + line, e);
            }
        }
        return values;
    }
}
