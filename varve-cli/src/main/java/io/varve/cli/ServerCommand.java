package io.varve.cli;

import io.varve.broker.Broker;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code varve server [--config FILE] [--override key=value]...}: runs a node until SIGTERM or Ctrl-C. */
@Command(
        name = "server",
        mixinStandardHelpOptions = true,
        description = "Start a Varve node (broker and controller) with Kafka-style server.properties.")
public final class ServerCommand implements Callable<Integer> {

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "A Kafka-style server.properties file.")
    Path configFile;

    @Option(names = "--override", paramLabel = "key=value", description = "Override one configuration key; repeatable.")
    List<String> overrides = new ArrayList<>();

    /** How long a node whose every log dir failed keeps answering (with errors) before it halts. */
    private static final long FATAL_GRACE_MS = 1000;

    @Override
    public Integer call() throws Exception {
        BrokerConfig config;
        try {
            config = BrokerConfig.load(configFile, overrides);
        } catch (ConfigException e) {
            System.err.println("varve: " + e.getMessage());
            return 2;
        }
        Broker broker = new Broker(config);
        broker.onFatalStorageFailure(message -> {
            System.err.println("varve: " + message);
            // Halt, not exit: a clean shutdown would mark the failed dirs clean and skip their recovery. A short grace
            // first lets the requests in flight be answered (KAFKA_STORAGE_ERROR) rather than cut off.
            Thread halt = new Thread(
                    () -> {
                        try {
                            Thread.sleep(FATAL_GRACE_MS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        Runtime.getRuntime().halt(1);
                    },
                    "varve-halt");
            halt.setDaemon(false);
            halt.start();
        });
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    broker.close();
                    stopped.countDown();
                },
                "varve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            broker.start();
        } catch (ConfigException e) {
            System.err.println("varve: " + e.getMessage());
            broker.close();
            return 2;
        } catch (Exception e) {
            System.err.println("varve: the node failed to start: " + rootMessage(e));
            broker.close();
            return 1;
        }
        stopped.await();
        return 0;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
