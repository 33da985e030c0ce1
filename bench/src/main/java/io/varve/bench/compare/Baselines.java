package io.varve.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the run {@code --compare BASELINE} names: a results file ({@code .json} as the harness writes per run, or a
 * markdown report), {@code FILE.md#heading} for a section of a markdown file, or else a heading of
 * {@code bench/RESULTS.md} (any part of it that only one heading contains, e.g. {@code "2026-11-29 19:08"}).
 */
public final class Baselines {

    private Baselines() {}

    public static RunRecord load(String spec, Path resultsMarkdown) throws IOException {
        Path file = Path.of(spec);
        if (Files.isRegularFile(file)) {
            String text = Files.readString(file);
            return spec.endsWith(".json") ? RunJson.read(text) : RunMarkdown.parse(text, null);
        }
        int hash = spec.indexOf('#');
        if (hash > 0 && Files.isRegularFile(Path.of(spec.substring(0, hash)))) {
            return RunMarkdown.parse(Files.readString(Path.of(spec.substring(0, hash))), spec.substring(hash + 1));
        }
        if (spec.endsWith(".json") || spec.endsWith(".md")) {
            throw new IOException("no such results file: " + spec);
        }
        if (!Files.isRegularFile(resultsMarkdown)) {
            throw new IOException("no " + resultsMarkdown + " to look up the heading \"" + spec + "\" in");
        }
        return RunMarkdown.parse(Files.readString(resultsMarkdown), spec);
    }
}
