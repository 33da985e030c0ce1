package io.varve.http.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * client_java's JVM and process collectors (the families of its {@code JvmMetrics}), registered one by one so that two
 * of them cost less:
 *
 * <ul>
 *   <li>the thread collector ({@code jvm_threads_*}) asks the JVM for every thread's state and runs its deadlock
 *       detection, both operations that stop every thread at a safepoint: it runs at most once per refresh interval
 *       and the scrapes in between repeat its families;
 *   <li>the native memory collector ({@code jvm_native_memory_*}) only reports with {@code
 *       -XX:NativeMemoryTracking}; without it, it exposes nothing, yet setting it up starts the platform MBean server
 *       (some 150 ms of CPU): it is registered only when the JVM tracks native memory.
 * </ul>
 */
final class JvmCollectors {
    private JvmCollectors() {}

    static void register(PrometheusRegistry registry, long refreshMs, LongSupplier nanoClock) {
        PrometheusRegistry threads = new PrometheusRegistry();
        JvmThreadsMetrics.builder().register(threads);
        Refreshed<MetricSnapshots> threadFamilies = new Refreshed<>(threads::scrape, refreshMs, nanoClock);
        registry.register((MultiCollector) threadFamilies::get);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        if (tracksNativeMemory(ManagementFactory.getRuntimeMXBean().getInputArguments())) {
            JvmNativeMemoryMetrics.builder().register(registry);
        }
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }

    /** Whether the JVM was started with native memory tracking on ({@code summary} or {@code detail}). */
    static boolean tracksNativeMemory(List<String> jvmArguments) {
        for (String a : jvmArguments) {
            if (a.startsWith("-XX:NativeMemoryTracking=") && !a.endsWith("=off")) {
                return true;
            }
        }
        return false;
    }
}
