package io.varve.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.bench.compare.RunRecord.FigureRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RunMarkdownTest {

    /** Two runs as the harness's Report writes them, newest first. */
    private static final String RESULTS =
            """
            # Benchmark results

            ## Status

            Prose with a (1) in it and a table.

            | target | value |
            |---|---|
            | produce | 1.3× |

            ## Run of 2026-12-02 10:00:00

            > Load average ...

            | | |
            |---|---|
            | CPU | 2 cores |

            ### (1) Produce throughput, 1 KiB records, 6 partitions, acks=all, linger.ms=5

            ProducerPerformance, 1000000 records.

            | figure | unit | Kafka | Varve | Varve/Kafka | target | verdict |
            |---|---|---:|---:|---:|---|---|
            | produce throughput | MiB/s | 80.0 | 100 | 1.25× | ≥ 1.0× | pass |
            | (7) broker peak RSS (VmHWM) | MiB | 798 | 200 | 0.25× | ≤ 0.6× | pass |

            <details><summary>every run</summary>

            - produce throughput: Kafka [80.0, 81.5, 79.0], Varve [100, 99.5, 103]
            - (7) broker peak RSS (VmHWM): Kafka [814, 798, 781], Varve [200, 196, 203]

            </details>

            ### (15) Cost of metrics (Varve only)

            | figure | unit | Kafka | Varve | Varve/Kafka | target | verdict |
            |---|---|---:|---:|---:|---|---|
            | scrapes answered | scrapes | Varve only | 60 | — | — | — |

            <details><summary>every run</summary>

            - scrapes answered: Kafka [], Varve [60.0]

            </details>

            ### (7) Broker peak RSS and CPU per GiB moved, all scenarios

            | scenario | figure | Kafka | Varve | Varve/Kafka | target | verdict |
            |---|---|---:|---:|---:|---|---|
            | (1) | (7) broker peak RSS (VmHWM) MiB | 798 | 200 | 0.25× | ≤ 0.6× | pass |

            ## Run of 2026-12-01 09:00:00 — SMOKE

            ### (1) Produce throughput

            | figure | unit | Kafka | Varve | Varve/Kafka | target | verdict |
            |---|---|---:|---:|---:|---|---|
            | produce throughput | MiB/s | 10.0 | 12.0 | 1.20× | ≥ 1.0× | pass |

            <details><summary>every run</summary>

            - produce throughput: Kafka [10.0], Varve [12.0]

            </details>
            """;

    @Test
    void readsEachScenariosSamplesAndUnitsUnderTheNamedHeadingOnly() {
        RunRecord run = RunMarkdown.parse(RESULTS, "2026-12-02 10:00");

        assertThat(run.label()).isEqualTo("Run of 2026-12-02 10:00:00");
        assertThat(run.smoke()).isFalse();
        assertThat(run.scenarios()).extracting(RunRecord.ScenarioRecord::number).containsExactly(1, 15);
        FigureRecord throughput =
                run.scenario(1).orElseThrow().figure("produce throughput").orElseThrow();
        assertThat(throughput.unit()).isEqualTo("MiB/s");
        assertThat(throughput.better()).isEqualTo(Better.HIGHER); // from its unit
        assertThat(throughput.kafka()).containsExactly(80.0, 81.5, 79.0);
        assertThat(throughput.varve()).containsExactly(100.0, 99.5, 103.0);
        assertThat(run.scenario(1)
                        .orElseThrow()
                        .figure("(7) broker peak RSS (VmHWM)")
                        .orElseThrow()
                        .varve())
                .containsExactly(200.0, 196.0, 203.0);
        FigureRecord scrapes = run.scenario(15).orElseThrow().figures().get(0);
        assertThat(scrapes.kafka()).isEmpty();
        assertThat(scrapes.unit()).isEqualTo("scrapes");
    }

    @Test
    void theUnitGivesTheDirectionWhereItCanAndOnlyThere() {
        assertThat(RunMarkdown.betterByUnit("records/s")).isEqualTo(Better.HIGHER);
        assertThat(RunMarkdown.betterByUnit("ms")).isEqualTo(Better.LOWER);
        assertThat(RunMarkdown.betterByUnit("CPU s/GiB")).isEqualTo(Better.LOWER);
        assertThat(RunMarkdown.betterByUnit("%")).isNull();
        assertThat(RunMarkdown.betterByUnit("scrapes")).isNull();
    }

    @Test
    void anExactHeadingWinsAndASmokeHeadingMarksASmokeRun() {
        RunRecord smoke = RunMarkdown.parse(RESULTS, "Run of 2026-12-01 09:00:00 — SMOKE");

        assertThat(smoke.smoke()).isTrue();
        assertThat(smoke.scenario(1).orElseThrow().figures().get(0).varve()).containsExactly(12.0);
    }

    @Test
    void withoutAHeadingTheFirstRunOfTheFileIsRead() {
        assertThat(RunMarkdown.parse(RESULTS, null).label()).isEqualTo("Run of 2026-12-02 10:00:00");
    }

    @Test
    void aHeadingSeveralRunsMatchIsRefusedNamingThem() {
        assertThatThrownBy(() -> RunMarkdown.parse(RESULTS, "Run of 2026-12"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 headings contain")
                .hasMessageContaining("## Run of 2026-12-02 10:00:00")
                .hasMessageContaining("## Run of 2026-12-01 09:00:00 — SMOKE");
        assertThatThrownBy(() -> RunMarkdown.parse(RESULTS, "1999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no heading contains \"1999\"");
    }

    @Test
    void aSectionWithoutTheHarnessesSamplesIsRefused() {
        assertThatThrownBy(() -> RunMarkdown.parse(RESULTS, "Status"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds no scenario tables");
    }

    @Test
    void readsARecordedRunOfTheRealResultsFile() throws IOException {
        // bench/RESULTS.md keeps every recorded run; this one (all scenarios 1-9, three rounds) stays as it was.
        RunRecord run = RunMarkdown.parse(Files.readString(Path.of("RESULTS.md")), "Run of 2026-11-29 19:08:21");

        assertThat(run.scenarios())
                .extracting(RunRecord.ScenarioRecord::number)
                .containsExactly(1, 2, 3, 4, 5, 6, 8, 9);
        assertThat(run.scenario(1)
                        .orElseThrow()
                        .figure("(7) broker peak RSS (VmHWM)")
                        .orElseThrow()
                        .varve())
                .containsExactly(200.0, 196.0, 203.0);
    }
}
