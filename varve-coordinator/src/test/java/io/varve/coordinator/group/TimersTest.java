package io.varve.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimersTest {
    @Test
    void dueTimersRunInDeadlineOrderAndRescheduleReplaces() {
        Timers timers = new Timers();
        List<String> ran = new ArrayList<>();
        timers.schedule(Timers.key("b"), 20, () -> ran.add("b"));
        timers.schedule(Timers.key("a"), 10, () -> ran.add("a"));
        timers.schedule(Timers.key("c"), 5, () -> ran.add("c-old"));
        timers.schedule(Timers.key("c"), 30, () -> ran.add("c"));
        assertThat(timers.nextDeadlineMs()).isEqualTo(10);
        assertThat(timers.expire(20)).isEqualTo(2);
        assertThat(ran).containsExactly("a", "b");
        timers.cancel(Timers.key("c"));
        assertThat(timers.expire(100)).isZero();
        assertThat(timers.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aTimerScheduledByAnExpiringOneRunsInTheSameCallWhenAlreadyDue() {
        Timers timers = new Timers();
        List<String> ran = new ArrayList<>();
        timers.schedule(Timers.key("first"), 10, () -> {
            ran.add("first");
            timers.schedule(Timers.key("second"), 10, () -> ran.add("second"));
        });
        timers.expire(10);
        assertThat(ran).containsExactly("first", "second");
    }
}
