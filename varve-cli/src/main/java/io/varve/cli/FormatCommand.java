package io.varve.cli;

import io.varve.broker.StorageFormatter;
import io.varve.broker.StorageFormatter.InitialVoters;
import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code varve format --config FILE --cluster-id ID [--add-scram 'SCRAM-SHA-256=[name=U,password=P]']... [--feature NAME=LEVEL]... [--standalone |
 * --initial-controllers LIST | --no-initial-controllers]}: Kafka's {@code kafka-storage format} for a controller of a dynamic quorum (see {@link
 * StorageFormatter}). Nodes of a static quorum need not run it: they format themselves at first start.
 */
@Command(
        name = "format",
        mixinStandardHelpOptions = true,
        description = "Format a node's directories: cluster id, directory ids and, for a dynamic controller quorum"
                + " (controller.quorum.bootstrap.servers), its initial voters.")
public final class FormatCommand implements Callable<Integer> {

    @Option(
            names = {"-c", "--config"},
            paramLabel = "FILE",
            description = "The node's server.properties.")
    Path configFile;

    @Option(names = "--override", paramLabel = "key=value", description = "Override one configuration key; repeatable.")
    List<String> overrides = new ArrayList<>();

    @Option(
            names = {"-t", "--cluster-id"},
            required = true,
            paramLabel = "ID",
            description = "The cluster id, the same on every node (a Kafka uuid, as kafka-storage random-uuid prints).")
    String clusterId;

    @Option(
            names = {"-S", "--add-scram"},
            paramLabel = "MECHANISM=[name=USER,password=PASSWORD]",
            description = "A SCRAM user of the new cluster, as kafka-storage format takes it, for example"
                    + " 'SCRAM-SHA-256=[name=alice,password=alice-secret]' (optionally iterations=N); repeatable.")
    List<String> addScram = new ArrayList<>();

    @Option(
            names = {"-f", "--feature"},
            paramLabel = "NAME=LEVEL",
            description = "A feature level the new cluster starts with instead of the default, for example"
                    + " transaction.version=1 (the default is 2, transactions v2); repeatable.")
    List<String> features = new ArrayList<>();

    @ArgGroup(exclusive = true)
    Voters voters;

    static final class Voters {
        @Option(
                names = {"-s", "--standalone"},
                description = "This node is the only initial voter.")
        boolean standalone;

        @Option(
                names = {"-I", "--initial-controllers"},
                paramLabel = "ID@HOST:PORT:DIRECTORY_ID,...",
                description = "The initial voters, the same list on each of them.")
        String initialControllers;

        @Option(
                names = {"-N", "--no-initial-controllers"},
                description = "No initial voters: the node joins an existing quorum as an observer.")
        boolean none;
    }

    @Override
    public Integer call() throws Exception {
        try {
            BrokerConfig config = BrokerConfig.load(configFile, overrides);
            InitialVoters initial = null;
            if (voters != null && voters.standalone) {
                initial = InitialVoters.standalone();
            } else if (voters != null && voters.initialControllers != null) {
                initial = InitialVoters.listed(Arrays.asList(voters.initialControllers.split(",")));
            } else if (voters != null && voters.none) {
                initial = InitialVoters.none();
            }
            Uuid directoryId = StorageFormatter.format(config, clusterId, initial, addScram, features);
            System.out.println("Formatted node " + config.nodeId() + " of cluster " + clusterId
                    + " (metadata directory " + config.metadataLogDir() + ", directory id " + directoryId + ").");
            return 0;
        } catch (ConfigException e) {
            System.err.println("varve: " + e.getMessage());
            return 2;
        }
    }
}
