package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Readings of one live process from {@code /proc}: its CPU time and its peak resident set. */
public final class ProcStats {

    private static final long CLOCK_TICKS_PER_SECOND = clockTicks();

    private ProcStats() {
    }

    /** User plus system CPU time the process has used so far, in seconds. */
    public static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // The command name (field 2) sits in parentheses and may hold spaces: count fields after the last ')'.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        long utimeTicks = Long.parseLong(fields[11]);  // field 14 of proc(5)
        long stimeTicks = Long.parseLong(fields[12]);  // field 15 of proc(5)
        return (utimeTicks + stimeTicks) / (double) CLOCK_TICKS_PER_SECOND;
    }

    /** The peak resident set size (VmHWM) the process has reached so far, in bytes. */
    public static long peakRssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                String[] parts = line.substring(6).trim().split("\\s+");
                return Long.parseLong(parts[0]) * 1024;
            }
        }
        throw new IOException("no VmHWM in /proc/" + pid + "/status");
    }

    private static long clockTicks() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(getconf.getInputStream().readAllBytes()).trim();
            getconf.waitFor();
            return Long.parseLong(out);
        } catch (IOException | NumberFormatException e) {
            return 100;  // the Linux default on every common architecture
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
