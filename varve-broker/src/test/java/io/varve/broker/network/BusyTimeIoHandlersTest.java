package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

class BusyTimeIoHandlersTest {
    @Test
    void anEventLoopReportsTheTimeItsTasksRanAndLittleWhileItWaits() throws Exception {
        LongAdder busyNanos = new LongAdder();
        EventLoopGroup loop =
                new MultiThreadIoEventLoopGroup(1, new BusyTimeIoHandlers(NioIoHandler.newFactory(), busyNanos::add));
        try {
            loop.submit(() -> {}).get(5, TimeUnit.SECONDS); // the loop is running
            Thread.sleep(200); // waiting for I/O: idle
            long idleBusy = busyNanos.sum();
            long spinNanos = TimeUnit.MILLISECONDS.toNanos(100);
            loop.submit(() -> {
                        long end = System.nanoTime() + spinNanos;
                        while (System.nanoTime() < end) {
                            Thread.onSpinWait();
                        }
                    })
                    .get(5, TimeUnit.SECONDS);
            // the loop reports its tasks' time when it next turns to I/O
            await().atMost(Duration.ofSeconds(5)).until(() -> busyNanos.sum() - idleBusy >= spinNanos);
            assertThat(idleBusy).as("200 ms of waiting is not busy").isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
