package io.varve.it.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Linux network namespace per node, each joined by a veth pair to a private bridge in the test's own namespace,
 * with addresses in {@code 10.219.X.0/24} (X picked so that no address of this machine is in it). The test JVM
 * reaches every node through the bridge ({@code 10.219.X.1}); {@link #isolate} cuts one node off from the other
 * nodes (not from the test) with blackhole routes on both sides, so that neither a new connection nor a packet of an
 * open one gets through, and {@link #heal} removes them. Needs root and {@code ip} (iproute2).
 *
 * <p>Everything created is removed by {@link #close}, also from a shutdown hook, and a later run removes what a
 * killed test JVM left: each network records its owner's PID in {@value #OWNERS_DIR_NAME} under the temp dir.
 */
public final class PrivateNetwork implements AutoCloseable {
    private static final String OWNERS_DIR_NAME = "varve-it-netns";
    private static final Path OWNERS = Path.of(System.getProperty("java.io.tmpdir"), OWNERS_DIR_NAME);
    private static final String PREFIX = "10.219.";
    private static final int FIRST_NODE_HOST = 10;
    private static final long COMMAND_TIMEOUT_SECONDS = 20;

    private final String token;
    private final int subnet;
    private final int size;
    /** Blackhole routes in place, as "namespaceIndex>address". */
    private final Set<String> blackholes = new LinkedHashSet<>();

    private final Thread cleanup = new Thread(this::removeAll, "private-network-cleanup");
    private boolean closed;

    private PrivateNetwork(String token, int subnet, int size) {
        this.token = token;
        this.subnet = subnet;
        this.size = size;
    }

    /** Why this machine cannot run these tests, or null when it can (root, and iproute2's {@code ip} present). */
    public static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (CI runs as root); this JVM runs as "
                    + System.getProperty("user.name");
        }
        if (Stream.of("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")
                .noneMatch(p -> Files.isExecutable(Path.of(p)))) {
            return "no 'ip' command: install the Debian package iproute2";
        }
        return null;
    }

    /** Creates the bridge and {@code size} namespaces, each with its address up and loopback up. */
    public static PrivateNetwork create(int size) throws IOException {
        if (size < 1 || size > 200) {
            throw new IllegalArgumentException("size must be in [1, 200]: " + size);
        }
        removeLeftovers();
        String token =
                String.format(Locale.ROOT, "%04x", ThreadLocalRandom.current().nextInt(0x10000));
        PrivateNetwork network = new PrivateNetwork(token, freeSubnet(), size);
        Files.createDirectories(OWNERS);
        Files.writeString(
                OWNERS.resolve(token), Long.toString(ProcessHandle.current().pid()), UTF_8);
        Runtime.getRuntime().addShutdownHook(network.cleanup);
        try {
            network.build();
        } catch (IOException | RuntimeException e) {
            network.close();
            throw e;
        }
        return network;
    }

    private void build() throws IOException {
        ip("link", "add", bridge(), "type", "bridge");
        ip("addr", "add", PREFIX + subnet + ".1/24", "dev", bridge());
        ip("link", "set", bridge(), "up");
        for (int i = 0; i < size; i++) {
            String ns = namespace(i);
            ip("netns", "add", ns);
            ip("netns", "exec", ns, "ip", "link", "set", "lo", "up");
            ip("link", "add", hostSide(i), "type", "veth", "peer", "name", nodeSide(i));
            ip("link", "set", nodeSide(i), "netns", ns);
            ip("link", "set", hostSide(i), "master", bridge());
            ip("link", "set", hostSide(i), "up");
            ip("netns", "exec", ns, "ip", "addr", "add", address(i) + "/24", "dev", nodeSide(i));
            ip("netns", "exec", ns, "ip", "link", "set", nodeSide(i), "up");
        }
    }

    public int size() {
        return size;
    }

    /** The address of node {@code index} (0-based), reachable from the test and, unless isolated, from the others. */
    public String address(int index) {
        checkIndex(index);
        return PREFIX + subnet + "." + (FIRST_NODE_HOST + index);
    }

    public String namespace(int index) {
        checkIndex(index);
        return "varve-" + token + "-" + index;
    }

    /** The command prefix that runs a program inside node {@code index}'s namespace ({@code ip netns exec} execs it). */
    public List<String> launcher(int index) {
        return List.of("ip", "netns", "exec", namespace(index));
    }

    /** Cuts node {@code index} off from every other node, both ways; the test still reaches it. */
    public synchronized void isolate(int index) throws IOException {
        checkIndex(index);
        for (int other = 0; other < size; other++) {
            if (other != index) {
                blackhole(index, address(other));
                blackhole(other, address(index));
            }
        }
    }

    /**
     * Cuts node {@code index} off from every other node and from the test's own namespace too (its clients), both
     * ways: the node is alone, as a machine whose network link failed.
     */
    public synchronized void isolateCompletely(int index) throws IOException {
        isolate(index);
        blackhole(index, PREFIX + subnet + ".1");
    }

    /** Removes every cut made by {@link #isolate} and {@link #isolateCompletely}. */
    public synchronized void heal() throws IOException {
        List<String> routes = new ArrayList<>(blackholes);
        for (String route : routes) {
            int at = route.indexOf('>');
            int ns = Integer.parseInt(route.substring(0, at));
            ip("netns", "exec", namespace(ns), "ip", "route", "del", "blackhole", route.substring(at + 1) + "/32");
            blackholes.remove(route);
        }
    }

    private void blackhole(int ns, String address) throws IOException {
        if (blackholes.add(ns + ">" + address)) {
            ip("netns", "exec", namespace(ns), "ip", "route", "add", "blackhole", address + "/32");
        }
    }

    /** Removes the namespaces (and with them the veth pairs) and the bridge. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        removeAll();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // already shutting down: the hook is this very call's caller or has run
        }
    }

    private void removeAll() {
        remove(token);
    }

    private static void remove(String token) {
        for (String ns : namespacesOf(token)) {
            quietly("ip", "netns", "del", ns);
        }
        quietly("ip", "link", "del", "vbr" + token);
        try {
            Files.deleteIfExists(OWNERS.resolve(token));
        } catch (IOException e) {
            System.err.println("PrivateNetwork: cannot delete " + OWNERS.resolve(token) + ": " + e);
        }
    }

    /** Networks whose owning JVM is gone (killed before its shutdown hook ran). */
    private static void removeLeftovers() throws IOException {
        if (!Files.isDirectory(OWNERS)) {
            return;
        }
        try (Stream<Path> owners = Files.list(OWNERS)) {
            for (Path owner : owners.toList()) {
                long pid = Long.parseLong(Files.readString(owner, UTF_8).trim());
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                System.err.println("PrivateNetwork: removing network " + owner.getFileName() + " left by pid " + pid);
                remove(owner.getFileName().toString());
            }
        }
    }

    private static List<String> namespacesOf(String token) {
        List<String> found = new ArrayList<>();
        String prefix = "varve-" + token + "-";
        for (String line : run(List.of("ip", "netns", "list")).split("\n")) {
            String name = line.split(" ")[0].trim();
            if (name.startsWith(prefix)) {
                found.add(name);
            }
        }
        return found;
    }

    /** A /24 of 10.219.0.0/16 that no interface of this machine has an address in. */
    private static int freeSubnet() {
        String addresses = run(List.of("ip", "-4", "-o", "addr", "show"));
        for (int attempt = 0; attempt < 64; attempt++) {
            int candidate = ThreadLocalRandom.current().nextInt(256);
            if (!addresses.contains(PREFIX + candidate + ".")) {
                return candidate;
            }
        }
        throw new IllegalStateException("no free /24 in " + PREFIX + "0.0/16:\n" + addresses);
    }

    private String bridge() {
        return "vbr" + token;
    }

    private String hostSide(int index) {
        return "vh" + token + index;
    }

    private String nodeSide(int index) {
        return "vn" + token + index;
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("node index " + index + " of " + size);
        }
    }

    private static void ip(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        ProcessResult result = exec(command);
        if (result.exitCode != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + result.exitCode + "): " + result.output);
        }
    }

    private static void quietly(String... command) {
        exec(List.of(command));
    }

    private static String run(List<String> command) {
        ProcessResult result = exec(command);
        if (result.exitCode != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + result.output);
        }
        return result.output;
    }

    private record ProcessResult(int exitCode, String output) {}

    private static ProcessResult exec(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes(); // bounded: ip prints a few lines
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new ProcessResult(-1, "timed out after " + COMMAND_TIMEOUT_SECONDS + " s");
            }
            return new ProcessResult(process.exitValue(), new String(output, UTF_8).trim());
        } catch (IOException e) {
            return new ProcessResult(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ProcessResult(-1, "interrupted");
        }
    }
}
