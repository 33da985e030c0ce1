package io.varve.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code varve} command. */
@Command(
        name = "varve",
        mixinStandardHelpOptions = true,
        version = "Varve 0.1.0-SNAPSHOT",
        description = "A streaming platform that speaks the Apache Kafka protocol.",
        subcommands = {ServerCommand.class, FormatCommand.class, CdsTrainingCommand.class})
public final class Varve implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        int exitCode = new CommandLine(new Varve()).execute(args);
        if (exitCode != 0) {
            System.exit(exitCode);
        }
    }
}
