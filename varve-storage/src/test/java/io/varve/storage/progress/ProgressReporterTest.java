package io.varve.storage.progress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressReporterTest {
    private final AtomicLong nowMs = new AtomicLong(1_000_000);
    private final List<String> lines = new ArrayList<>();

    private ProgressReporter reporter(long total) {
        return ProgressReporter.start("Recovering log dir /d", total, "partitions", nowMs::get, 5_000, lines::add);
    }

    @Test
    void writesALineWithPercentRateAndTimeLeftOncePerInterval() {
        ProgressReporter p = reporter(100);
        p.advance(10);
        nowMs.addAndGet(4_999);
        p.advance(10);
        assertThat(lines).as("not before the interval").isEmpty();
        nowMs.addAndGet(1);
        p.advance(5); // 25 of 100 in 5 s
        assertThat(lines)
                .containsExactly(
                        "Recovering log dir /d: 25 of 100 partitions (25%), 5.0 partitions/s, about 15 s left");
        p.advance(5);
        assertThat(lines).as("the next line waits for the next interval").hasSize(1);
        nowMs.addAndGet(10_000);
        p.advance(20); // 25 more in 10 s since the previous line
        assertThat(lines.get(1))
                .isEqualTo("Recovering log dir /d: 50 of 100 partitions (50%), 2.5 partitions/s, about 20 s left");
        assertThat(p.linesWritten()).isEqualTo(2);
    }

    @Test
    void aTaskShorterThanOneIntervalWritesNothingNotEvenAFinalLine() {
        ProgressReporter p = reporter(3);
        p.advance(3);
        nowMs.addAndGet(1_200);
        assertThat(p.finish()).isEqualTo(1_200);
        assertThat(lines).isEmpty();
    }

    @Test
    void aTaskThatReportedEndsWithADoneLineWithItsMeanRate() {
        ProgressReporter p = reporter(40);
        nowMs.addAndGet(6_000);
        p.advance(30);
        nowMs.addAndGet(2_000);
        p.advance(10);
        p.finish();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).isEqualTo("Recovering log dir /d: done, 40 partitions in 8 s (5.0 partitions/s)");
    }

    @Test
    void aMovingGoalIsReportedAgainstItsLatestTotal() {
        ProgressReporter p =
                ProgressReporter.start("Follower t-0 catching up", 1_000, "offsets", nowMs::get, 5_000, lines::add);
        nowMs.addAndGet(5_000);
        p.progressTo(500, 2_000); // the leader appended meanwhile
        assertThat(lines)
                .containsExactly(
                        "Follower t-0 catching up: 500 of 2,000 offsets (25%), 100 offsets/s, about 15 s left");
    }

    @Test
    void aStalledTaskReportsARateOfZeroAndNoTimeLeft() {
        ProgressReporter p = reporter(10);
        nowMs.addAndGet(5_000);
        p.maybeReport();
        assertThat(lines).containsExactly("Recovering log dir /d: 0 of 10 partitions (0%), 0.0 partitions/s");
    }

    @Test
    void durationsReadAsSecondsMinutesOrHours() {
        assertThat(ProgressReporter.duration(59_999)).isEqualTo("59 s");
        assertThat(ProgressReporter.duration(61_000)).isEqualTo("1 min 1 s");
        assertThat(ProgressReporter.duration(3_720_000)).isEqualTo("1 h 2 min");
    }
}
