package io.varve.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The certificates of a secured run, made with the JDK's keytool under {@code bench/work/tls} once per harness run and
 * given to both brokers alike: one self-signed RSA-2048 broker certificate (subject alternative names 127.0.0.1 and
 * localhost, so clients keep Kafka's default hostname verification) in a PKCS12 keystore, and a PKCS12 truststore
 * holding it for the clients. Also the client property files Kafka's tools read ({@code --command-config}).
 */
public final class TlsMaterial {
    /** Throwaway: a keystore made for one run on this machine, deleted with bench/work. */
    static final String STORE_PASSWORD = "bench-store-secret";
    public static final String SCRAM_USER = "bench";
    public static final String SCRAM_PASSWORD = "bench-scram-secret";
    public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";
    private static final String SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    private static final Duration KEYTOOL_TIMEOUT = Duration.ofMinutes(1);

    private final Path dir;
    private final Path keystore;
    private final Path truststore;

    private TlsMaterial(Path dir) {
        this.dir = dir;
        this.keystore = dir.resolve("broker.p12");
        this.truststore = dir.resolve("truststore.p12");
    }

    /** New certificates under {@code workDir/tls} (what an earlier run left there is replaced). */
    public static TlsMaterial create(Path workDir) throws IOException {
        Path dir = workDir.resolve("tls");
        BrokerLauncher.deleteTree(dir);
        Files.createDirectories(dir);
        TlsMaterial tls = new TlsMaterial(dir);
        Path certificate = dir.resolve("broker.crt");
        tls.keytool(workDir, "-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "30",
                "-storetype", "PKCS12", "-keystore", tls.keystore.toString(),
                "-storepass", STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        tls.keytool(workDir, "-exportcert", "-rfc", "-alias", "broker", "-keystore", tls.keystore.toString(),
                "-storepass", STORE_PASSWORD, "-file", certificate.toString());
        tls.keytool(workDir, "-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(),
                "-storetype", "PKCS12", "-keystore", tls.truststore.toString(), "-storepass", STORE_PASSWORD);
        return tls;
    }

    /** What an SSL listener named SSL and a SASL_SSL listener named SASL_SSL (SCRAM-SHA-512) need on either broker. */
    public Map<String, String> brokerSettings(String listenerName) {
        Map<String, String> settings = new LinkedHashMap<>();
        String prefix = "listener.name." + listenerName.toLowerCase(java.util.Locale.ROOT) + ".";
        settings.put(prefix + "ssl.keystore.type", "PKCS12");
        settings.put(prefix + "ssl.keystore.location", keystore.toString());
        settings.put(prefix + "ssl.keystore.password", STORE_PASSWORD);
        settings.put(prefix + "ssl.key.password", STORE_PASSWORD);
        if (listenerName.startsWith("SASL_")) {
            settings.put(prefix + "sasl.enabled.mechanisms", SCRAM_MECHANISM);
            settings.put(prefix + SCRAM_MECHANISM.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config",
                    SCRAM_MODULE + " required;");
        }
        return settings;
    }

    /** A client property file for {@code protocol} (SSL, or SASL_SSL as the SCRAM user), written once. */
    public Path clientConfig(String protocol) throws IOException {
        Path file = dir.resolve("client-" + protocol.toLowerCase(java.util.Locale.ROOT) + ".properties");
        if (Files.exists(file)) {
            return file;
        }
        Map<String, String> props = clientProperties(protocol);
        StringBuilder text = new StringBuilder("# written by the Varve benchmark harness\n");
        props.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        Files.writeString(file, text);
        return file;
    }

    /** The same settings as {@link #clientConfig}, for the harness's own Admin clients. */
    public Map<String, String> clientProperties(String protocol) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("security.protocol", protocol);
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.location", truststore.toString());
        props.put("ssl.truststore.password", STORE_PASSWORD);
        if (protocol.startsWith("SASL_")) {
            props.put("sasl.mechanism", SCRAM_MECHANISM);
            props.put("sasl.jaas.config", SCRAM_MODULE + " required username=\"" + SCRAM_USER + "\" password=\""
                    + SCRAM_PASSWORD + "\";");
        }
        return props;
    }

    private void keytool(Path workDir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        ChildProcesses.Outcome outcome = ChildProcesses.run(command, workDir,
                workDir.resolve("logs").resolve("keytool.log"), KEYTOOL_TIMEOUT);
        if (!outcome.ok()) {
            throw new IOException("keytool " + args[0] + " failed:\n" + outcome.tail(10));
        }
    }
}
