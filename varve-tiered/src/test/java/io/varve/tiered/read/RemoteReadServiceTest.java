package io.varve.tiered.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.varve.tiered.spi.RemoteStorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class RemoteReadServiceTest {
    @TempDir
    Path dir;

    private TieredFixture fixture;
    private RemoteReadService service;

    private RemoteReadService service(int threads, int maxPending) throws Exception {
        fixture = new TieredFixture(dir);
        service = new RemoteReadService(
                fixture.storage,
                fixture.source,
                new RemoteReadConfig(threads, maxPending, 500, 1 << 20, 4096, 1 << 16, dir.resolve("index-cache")));
        return service;
    }

    @AfterEach
    void close() {
        if (service != null) {
            service.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aFullReaderQueueRefusesTheNextReadAtOnceWithARetriableError() throws Exception {
        RemoteReadService readers = service(1, 1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Integer> running = readers.submit(r -> {
            started.countDown();
            await(release);
            return 1;
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Integer> queued = readers.submit(r -> 2);

        CompletableFuture<Integer> refused = readers.submit(r -> 3);

        assertThat(refused).isCompletedExceptionally();
        assertThatThrownBy(refused::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                        .isTrue());
        release.countDown();
        assertThat(running.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void aStoreOutageLogsOneAlarmLineAndOneRecoveryLineHoweverManyReadsFail() throws Exception {
        RemoteReadService readers = service(2, 10);
        Logger alarmLog = (Logger) LoggerFactory.getLogger(RemoteStoreAlarm.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        Level level = alarmLog.getLevel();
        alarmLog.setLevel(Level.INFO);
        alarmLog.addAppender(appender);
        try {
            for (int i = 0; i < 20; i++) {
                CompletableFuture<Object> failed = readers.submit(r -> {
                    throw new RemoteStorageException("connection refused", true);
                });
                assertThatThrownBy(() -> failed.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            }
            assertThat(readers.storeFailing()).isTrue();
            assertThat(readers.failedReads()).isEqualTo(20);

            assertThat(readers.submit(r -> "ok").get(10, TimeUnit.SECONDS)).isEqualTo("ok");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !readers.storeFailing());

            assertThat(appender.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.ERROR, Level.INFO);
            assertThat(appender.list.get(1).getFormattedMessage()).contains("20 failed reads");
        } finally {
            alarmLog.detachAppender(appender);
            alarmLog.setLevel(level);
        }
    }

    @Test
    void anOffsetOutsideTheRemoteLogIsTheClientsErrorAndRaisesNoAlarm() throws Exception {
        RemoteReadService readers = service(1, 10);
        CompletableFuture<RemoteFetchResult> result = readers.fetch(
                new RemoteFetchRequest(TieredFixture.PARTITION, 5, 1000, true, java.util.OptionalInt.empty(), 0));

        assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class);
        assertThat(readers.storeFailing()).isFalse();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
