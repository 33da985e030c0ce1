package io.varve.broker.protocol;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The {@code throttle_time_ms} field of any response message. Nearly every response has it, but the generated classes
 * share no interface for it: the accessors are looked up once per class. A response without the field reads 0 and
 * ignores a set.
 */
public final class ThrottleTimes {
    private record Accessors(MethodHandle get, MethodHandle set) {}

    private static final ClassValue<Accessors> ACCESSORS = new ClassValue<>() {
        @Override
        protected Accessors computeValue(Class<?> type) {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            try {
                // typed as (ApiMessage) so that every call is an invokeExact: no per-call adaptation on the hot path
                return new Accessors(
                        lookup.findVirtual(type, "throttleTimeMs", MethodType.methodType(int.class))
                                .asType(MethodType.methodType(int.class, ApiMessage.class)),
                        lookup.findVirtual(type, "setThrottleTimeMs", MethodType.methodType(type, int.class))
                                .asType(MethodType.methodType(void.class, ApiMessage.class, int.class)));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return new Accessors(null, null);
            }
        }
    };

    public static int get(ApiMessage response) {
        Accessors a = ACCESSORS.get(response.getClass());
        if (a.get() == null) {
            return 0;
        }
        try {
            return (int) a.get().invokeExact(response);
        } catch (Throwable e) {
            throw new IllegalStateException(
                    "reading throttle_time_ms of " + response.getClass().getName(), e);
        }
    }

    /** Raises the response's throttle time to {@code throttleMs} (never lowers it). */
    public static void raise(ApiMessage response, int throttleMs) {
        Accessors a = ACCESSORS.get(response.getClass());
        if (a.set() == null || throttleMs <= get(response)) {
            return;
        }
        try {
            a.set().invokeExact(response, throttleMs);
        } catch (Throwable e) {
            throw new IllegalStateException(
                    "setting throttle_time_ms of " + response.getClass().getName(), e);
        }
    }

    private ThrottleTimes() {}
}
