package io.varve.broker.observe;

import io.varve.broker.network.ResponseFrame;
import io.varve.http.metrics.RequestMetrics;

/**
 * The times of one request, taken by the dispatcher: received (by the network thread), handler started and returned
 * (on a request thread), answered (the response serialised). Queue time is started minus received, local time
 * returned minus started, remote time (a purgatory, a remote read) answered minus returned, the send time sent (the socket took the last byte) minus
 * answered, and the total sent minus received. One small object per request (and the frame's copy carrying its
 * listener), none per record.
 */
public final class RequestTimer {
    private final RequestMetrics metrics;
    private final RequestMetrics.Api api;
    private final int version;
    private final int requestBytes;
    private final long receivedNanos;
    private long startedNanos;
    private long returnedNanos;
    private long answeredNanos;

    private RequestTimer(
            RequestMetrics metrics, RequestMetrics.Api api, int version, int requestBytes, long receivedNanos) {
        this.metrics = metrics;
        this.api = api;
        this.version = version;
        this.requestBytes = requestBytes;
        this.receivedNanos = receivedNanos;
    }

    /** A timer for a request of API {@code apiKey}; null when the API has no metrics (nothing is recorded). */
    public static RequestTimer of(
            RequestMetrics metrics, int apiKey, int version, int requestBytes, long receivedNanos) {
        RequestMetrics.Api api = metrics == null ? null : metrics.api(apiKey);
        return api == null ? null : new RequestTimer(metrics, api, version, requestBytes, receivedNanos);
    }

    public void handlerStarted(long nowNanos) {
        startedNanos = nowNanos;
    }

    public void handlerReturned(long nowNanos) {
        returnedNanos = nowNanos;
        metrics.handlerBusy(returnedNanos - startedNanos);
    }

    /**
     * The answer is serialised ({@code frame} null when the request gets no response); {@code failed} on an error.
     * Returns the frame to write: one that records the send and total times once the socket took it.
     */
    public ResponseFrame answered(ResponseFrame frame, boolean failed, long nowNanos) {
        long returned = returnedNanos == 0 ? nowNanos : returnedNanos;
        long started = startedNanos == 0 ? returned : startedNanos;
        api.record(version, requestBytes, started - receivedNanos, returned - started, nowNanos - returned);
        api.responded(frame == null ? 0 : sizeBytes(frame));
        if (failed) {
            api.failed();
        }
        if (frame == null) {
            api.sent(0, nowNanos - receivedNanos);
            return null;
        }
        answeredNanos = nowNanos;
        return frame.whenSent(this::sent);
    }

    /** Run by the network thread once the response is on the socket. */
    private void sent() {
        long now = System.nanoTime();
        api.sent(now - answeredNanos, now - receivedNanos);
    }

    static int sizeBytes(ResponseFrame frame) {
        long n = 0;
        for (ResponseFrame.Part part : frame.parts()) {
            n += part instanceof ResponseFrame.Bytes b
                    ? b.buffer().remaining()
                    : ((ResponseFrame.FileRegionPart) part).sizeBytes();
        }
        return (int) Math.min(Integer.MAX_VALUE, n);
    }
}
