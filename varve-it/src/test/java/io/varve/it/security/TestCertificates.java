package io.varve.it.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway certificate authority and certificates signed by it, made with the JDK's keytool (EC keys: fast to
 * generate): the broker's (with 127.0.0.1 and localhost as subject alternative names, so clients' hostname
 * verification passes), clients' (one per subject), and a truststore holding the CA. Keystores are PKCS12 unless
 * asked otherwise; {@link #pemChain} and {@link #pemKey} give the same material as PEM text.
 */
public final class TestCertificates {
    public static final String PASSWORD = "test-store-secret";
    private static final Path KEYTOOL = Path.of(System.getProperty("java.home"), "bin", "keytool");

    private final Path dir;
    private final Path caKeystore;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.caKeystore = dir.resolve("ca.p12");
    }

    /** A new CA under {@code dir}. */
    public static TestCertificates authority(Path dir, String caName) throws Exception {
        Files.createDirectories(dir);
        TestCertificates certs = new TestCertificates(dir);
        certs.keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + caName,
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-keystore",
                certs.caKeystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD);
        certs.keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                certs.caKeystore.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                certs.caPem().toString());
        return certs;
    }

    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** A truststore holding the CA's certificate. */
    public Path truststore(String type) throws Exception {
        Path store = dir.resolve("truststore." + type.toLowerCase());
        if (!Files.exists(store)) {
            keytool(
                    "-importcert",
                    "-noprompt",
                    "-alias",
                    "ca",
                    "-file",
                    caPem().toString(),
                    "-keystore",
                    store.toString(),
                    "-storetype",
                    type,
                    "-storepass",
                    PASSWORD);
        }
        return store;
    }

    /** The broker's keystore: CN=broker, valid for 127.0.0.1 and localhost. */
    public Path brokerKeystore(String type) throws Exception {
        return signed("broker-" + type.toLowerCase(), "CN=broker,O=Varve Test", "san=ip:127.0.0.1,dns:localhost", type);
    }

    /** Another broker keystore (a renewed certificate), valid for 127.0.0.1 and localhost too. */
    public Path brokerKeystore(String name, String subject) throws Exception {
        return signed(name, subject, "san=ip:127.0.0.1,dns:localhost", "PKCS12");
    }

    /** A client's keystore with {@code subject} as its certificate's distinguished name. */
    public Path clientKeystore(String name, String subject) throws Exception {
        return signed(name, subject, null, "PKCS12");
    }

    private Path signed(String name, String subject, String san, String type) throws Exception {
        Path store = dir.resolve(name + "." + type.toLowerCase());
        if (Files.exists(store)) {
            return store;
        }
        Path request = dir.resolve(name + ".csr");
        Path cert = dir.resolve(name + ".crt");
        keytool(
                "-genkeypair",
                "-alias",
                "key",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                subject,
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storetype",
                type,
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        keytool(
                "-certreq",
                "-alias",
                "key",
                "-keystore",
                store.toString(),
                "-storepass",
                PASSWORD,
                "-file",
                request.toString());
        List<String> gencert = new ArrayList<>(List.of(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                caKeystore.toString(),
                "-storepass",
                PASSWORD,
                "-infile",
                request.toString(),
                "-outfile",
                cert.toString(),
                "-rfc",
                "-validity",
                "2"));
        if (san != null) {
            gencert.addAll(List.of("-ext", san));
        }
        keytool(gencert.toArray(String[]::new));
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                caPem().toString(),
                "-keystore",
                store.toString(),
                "-storepass",
                PASSWORD);
        keytool(
                "-importcert",
                "-alias",
                "key",
                "-file",
                cert.toString(),
                "-keystore",
                store.toString(),
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        return store;
    }

    /** The certificate chain of a PKCS12 keystore's key as PEM text. */
    public static String pemChain(Path keystore) throws Exception {
        StringBuilder pem = new StringBuilder();
        for (Certificate c : load(keystore).getCertificateChain("key")) {
            pem.append(pem("CERTIFICATE", c.getEncoded()));
        }
        return pem.toString();
    }

    /** The private key of a PKCS12 keystore as unencrypted PKCS#8 PEM text. */
    public static String pemKey(Path keystore) throws Exception {
        Key key = load(keystore).getKey("key", PASSWORD.toCharArray());
        return pem("PRIVATE KEY", key.getEncoded());
    }

    private static KeyStore load(Path keystore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        return store;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(KEYTOOL.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
        assertThat(p.exitValue()).as("keytool %s: %s", args[0], output).isZero();
    }
}
