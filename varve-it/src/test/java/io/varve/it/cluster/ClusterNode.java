package io.varve.it.cluster;

import io.varve.it.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One node of a {@link ClusterProcesses}: a real {@code varve server} process on its own data directory and ports
 * (or its own network namespace), which the test starts, stops, kills and pauses by its PID. Not thread-safe: the
 * test's thread drives it.
 */
public final class ClusterNode {
    /** What a node runs ({@code process.roles}). */
    public enum Role {
        COMBINED("broker,controller"),
        CONTROLLER("controller"),
        BROKER("broker");

        final String processRoles;

        Role(String processRoles) {
            this.processRoles = processRoles;
        }

        boolean isController() {
            return this != BROKER;
        }

        boolean isBroker() {
            return this != CONTROLLER;
        }
    }

    private final int id;
    private final Role role;
    private final String host;
    private final int clientPort;
    private final int controllerPort;
    private final Path dataDir;
    private final Path logDir;
    private final List<String> launcher;
    private final List<String> arguments;
    private ServerProcess process;
    private int starts;
    private boolean paused;

    ClusterNode(
            int id,
            Role role,
            String host,
            int clientPort,
            int controllerPort,
            Path dataDir,
            Path logDir,
            List<String> launcher,
            List<String> arguments) {
        this.id = id;
        this.role = role;
        this.host = host;
        this.clientPort = clientPort;
        this.controllerPort = controllerPort;
        this.dataDir = dataDir;
        this.logDir = logDir;
        this.launcher = List.copyOf(launcher);
        this.arguments = List.copyOf(arguments);
    }

    public int id() {
        return id;
    }

    public Role role() {
        return role;
    }

    public String host() {
        return host;
    }

    /** The PLAINTEXT port (brokers and combined nodes); -1 on a controller alone. */
    public int clientPort() {
        return clientPort;
    }

    /** The CONTROLLER port (controllers and combined nodes); -1 on a broker alone. */
    public int controllerPort() {
        return controllerPort;
    }

    /** Where clients and DescribeQuorum reach this node: its client listener, else its controller listener. */
    public String bootstrap() {
        return host + ":" + (clientPort > 0 ? clientPort : controllerPort);
    }

    int requestPort() {
        return clientPort > 0 ? clientPort : controllerPort;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Starts (or restarts, on the same data directory) the process. */
    public ClusterNode start() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("node " + id + " is running (pid " + pid() + ")");
        }
        starts++;
        String name = "node-" + id + (starts == 1 ? "" : ".start" + starts);
        process = ServerProcess.start(
                launcher,
                List.of("-Dlogback.configurationFile=logback-cluster-node.xml"),
                logDir,
                name,
                requestPort(),
                arguments.toArray(String[]::new));
        paused = false;
        return this;
    }

    public boolean isAlive() {
        return process != null && process.process().isAlive();
    }

    public long pid() {
        if (process == null) {
            throw new IllegalStateException("node " + id + " was never started");
        }
        return process.process().pid();
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed, no EndQuorumEpoch is sent. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.kill();
            paused = false;
        }
    }

    /** SIGTERM (a clean stop: a leading controller resigns with EndQuorumEpoch); true when it exited in time. */
    public boolean stop(Duration timeout) throws IOException, InterruptedException {
        if (process == null || !process.process().isAlive()) {
            return true;
        }
        resume();
        return process.terminate(timeout);
    }

    /** SIGSTOP: the process keeps its sockets but runs no thread until {@link #resume}. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT after {@link #pause}. */
    public void resume() throws IOException, InterruptedException {
        if (paused && isAlive()) {
            signal("CONT");
            paused = false;
        }
    }

    public boolean isPaused() {
        return paused;
    }

    private void signal(String name) throws IOException, InterruptedException {
        if (!isAlive()) {
            throw new IllegalStateException("node " + id + " is not running");
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + name, Long.toString(pid())));
        Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }

    /** The last {@code lines} lines of the current process's stdout and stderr, for failure messages. */
    public String logTail(int lines) {
        if (process == null) {
            return "node " + id + ": never started";
        }
        try {
            String[] all = process.output().split("\n");
            int from = Math.max(0, all.length - lines);
            return "node " + id + " (pid " + pid() + (isAlive() ? ", alive" : ", exited") + "):\n"
                    + String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
        } catch (IOException e) {
            return "node " + id + ": cannot read its output: " + e;
        }
    }

    /** Stops the process if it runs (SIGCONT first if paused, then SIGKILL). */
    void close() throws InterruptedException {
        if (process != null && process.process().isAlive()) {
            try {
                resume();
            } catch (IOException | RuntimeException e) {
                // SIGKILL below works on a stopped process as well
            }
            process.kill();
        }
    }

    @Override
    public String toString() {
        return "node " + id + " (" + role.processRoles + " at " + bootstrap() + ")";
    }
}
