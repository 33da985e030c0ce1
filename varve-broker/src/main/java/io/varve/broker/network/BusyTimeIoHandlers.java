package io.varve.broker.network;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.util.function.LongConsumer;

/**
 * Wraps an event loop's I/O handler so that it reports the time its thread works: the time between two waits for I/O
 * (the tasks the loop runs: writes, response completions) plus the time the handler reports processing ready I/O.
 * The rest is the time it waited, Kafka's {@code NetworkProcessorAvgIdlePercent}. Two clock reads per loop turn; no
 * allocation.
 */
final class BusyTimeIoHandlers implements IoHandlerFactory {
    private final IoHandlerFactory delegate;
    private final LongConsumer busyNanos;

    BusyTimeIoHandlers(IoHandlerFactory delegate, LongConsumer busyNanos) {
        this.delegate = delegate;
        this.busyNanos = busyNanos;
    }

    @Override
    public IoHandler newHandler(ThreadAwareExecutor executor) {
        return new Measured(delegate.newHandler(executor), busyNanos);
    }

    @Override
    public boolean isChangingThreadSupported() {
        return delegate.isChangingThreadSupported();
    }

    /** Confined to its event loop's thread, as the handler it wraps. */
    private static final class Measured implements IoHandler, IoHandlerContext {
        private final IoHandler handler;
        private final LongConsumer busyNanos;
        private IoHandlerContext context;
        private long lastRunEndNanos;

        Measured(IoHandler handler, LongConsumer busyNanos) {
            this.handler = handler;
            this.busyNanos = busyNanos;
        }

        @Override
        public int run(IoHandlerContext loopContext) {
            long start = System.nanoTime();
            if (lastRunEndNanos != 0) {
                busyNanos.accept(start - lastRunEndNanos); // the loop ran its tasks since the last I/O turn
            }
            context = loopContext;
            int handled = handler.run(this);
            lastRunEndNanos = System.nanoTime();
            return handled;
        }

        @Override
        public boolean canBlock() {
            return context.canBlock();
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return context.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return context.deadlineNanos();
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return true;
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            busyNanos.accept(activeNanos);
            if (context.shouldReportActiveIoTime()) {
                context.reportActiveIoTime(activeNanos);
            }
        }

        @Override
        public void initialize() {
            handler.initialize();
        }

        @Override
        public void prepareToDestroy() {
            handler.prepareToDestroy();
        }

        @Override
        public void destroy() {
            handler.destroy();
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return handler.register(handle);
        }

        @Override
        public void wakeup() {
            handler.wakeup();
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return handler.isCompatible(handleType);
        }
    }
}
