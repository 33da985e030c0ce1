package io.varve.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.bench.compare.RunRecord.FigureRecord;
import io.varve.bench.compare.RunRecord.ScenarioRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunJsonTest {

    private static final RunRecord RUN = new RunRecord(
            "Run of 2026-12-02 10:00:00",
            false,
            Map.of("git", "abc1234"),
            List.of(
                    new ScenarioRecord(
                            1,
                            "Produce throughput",
                            List.of(
                                    new FigureRecord(
                                            "produce throughput",
                                            "MiB/s",
                                            Better.HIGHER,
                                            List.of(80.25, 81.5),
                                            List.of(100.125, 99.5)),
                                    new FigureRecord(
                                            "(7) broker peak RSS (VmHWM)",
                                            "MiB",
                                            Better.LOWER,
                                            List.of(),
                                            List.of(200.0)))),
                    new ScenarioRecord(15, "Cost of metrics", List.of())));

    @Test
    void aRunReadsBackAsItWasWrittenWithFullPrecision() throws IOException {
        assertThat(RunJson.read(RunJson.write(RUN))).isEqualTo(RUN);
    }

    @Test
    void aFileOfAnotherFormatOrWithABrokenSampleIsRefused() {
        assertThatThrownBy(() -> RunJson.read("{\"format\": 2, \"label\": \"x\"}"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format 1");
        assertThatThrownBy(() -> RunJson.read("{\"format\": 1, \"label\": \"x\", \"scenarios\": [{\"number\": 1, "
                        + "\"figures\": [{\"name\": \"f\", \"kafka\": [\"fast\"]}]}]}"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not a number");
    }

    @Test
    void aBaselineIsAJsonFileAMarkdownFileOrSectionOrAHeadingOfTheResults(@TempDir Path dir) throws IOException {
        Path json = Files.writeString(dir.resolve("run.json"), RunJson.write(RUN));
        Path results = Files.writeString(
                dir.resolve("RESULTS.md"),
                """
                ## Run of 2026-12-01 09:00:00

                ### (2) Produce throughput, acks=1

                - produce throughput: Kafka [10.0], Varve [12.0]

                ## Run of 2026-11-30 09:00:00

                ### (3) Latency

                - produce p99: Kafka [30.0], Varve [3.0]
                """);

        assertThat(Baselines.load(json.toString(), results)).isEqualTo(RUN);
        assertThat(Baselines.load(results.toString(), results)
                        .scenarios()
                        .get(0)
                        .number())
                .isEqualTo(2);
        assertThat(Baselines.load(results + "#2026-11-30", results)
                        .scenarios()
                        .get(0)
                        .number())
                .isEqualTo(3);
        assertThat(Baselines.load("2026-11-30 09:00", results)
                        .scenarios()
                        .get(0)
                        .number())
                .isEqualTo(3);
        assertThatThrownBy(() -> Baselines.load(dir.resolve("missing.json").toString(), results))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no such results file");
    }
}
