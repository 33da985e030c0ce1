package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What a result is worth knowing about the machine and versions it came from. */
final class MachineInfo {

    private MachineInfo() {
    }

    static Map<String, String> describe(BenchOptions options) {
        Map<String, String> info = new LinkedHashMap<>();
        info.put("CPU", firstValue(Path.of("/proc/cpuinfo"), "model name") + " — " + Runtime.getRuntime().availableProcessors()
                + " cores (nproc)");
        info.put("memory", memTotal());
        info.put("kernel", read(Path.of("/proc/sys/kernel/osrelease")));
        info.put("disk (data dirs of both brokers)", disk(options.dataDir()));
        info.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + " (" + System.getProperty("java.vendor") + "), the same JVM for both brokers and the tools");
        info.put("Apache Kafka", options.kafkaVersion + " (kafka_2.13 + kafka-tools release jars from Maven Central)");
        info.put("Varve", "0.1.0-SNAPSHOT, git " + git(options.root));
        info.put("broker JVM options (both)", options.brokerJvmOpts);
        info.put("Varve launcher options (as bin/varve adds them)",
                options.varveLauncherOpts.isBlank() ? "none" : options.varveLauncherOpts);
        info.put("shared broker settings (both)", BrokerLauncher.SHARED_SETTINGS.toString());
        info.put("tool JVM options", options.toolJvmOpts);
        return info;
    }

    /** The 1, 5 and 15 minute load averages: a busy machine makes every figure noise. */
    static String loadAverage() {
        String[] parts = read(Path.of("/proc/loadavg")).split("\\s+");
        return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : "unknown";
    }

    private static String memTotal() {
        String kb = firstValue(Path.of("/proc/meminfo"), "MemTotal").replace("kB", "").trim();
        try {
            return String.format(java.util.Locale.ROOT, "%.1f GiB", Long.parseLong(kb) / 1024.0 / 1024.0);
        } catch (NumberFormatException e) {
            return kb;
        }
    }

    private static String disk(Path dir) {
        try {
            var store = Files.getFileStore(Files.createDirectories(dir));
            return store.name() + " (" + store.type() + "), " + store.getUsableSpace() / (1L << 30) + " GiB free";
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String git(Path root) {
        String head = command(root, "git", "rev-parse", "--short", "HEAD");
        String dirty = command(root, "git", "status", "--porcelain", "--untracked-files=no");
        return (head.isEmpty() ? "unknown" : head) + (dirty.isEmpty() ? "" : " + uncommitted changes");
    }

    private static String command(Path dir, String... command) {
        try {
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes()).trim();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "";
            }
            return process.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String firstValue(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // fall through
        }
        return "unknown";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
