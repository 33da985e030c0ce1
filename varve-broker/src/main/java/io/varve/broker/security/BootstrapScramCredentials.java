package io.varve.broker.security;

import io.varve.broker.config.ConfigException;
import io.varve.metadata.record.UserScramCredentialRecord;
import io.varve.security.sasl.ScramCredential;
import io.varve.security.sasl.ScramMechanism;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SCRAM users given at format time, as Kafka's {@code kafka-storage format --add-scram
 * 'SCRAM-SHA-256=[name=alice,password=alice-secret]'} takes them ({@code iterations=} optional, 4096 by default): the
 * credentials are derived at once (a random salt, the stored and server keys; the password itself is never written)
 * into {@value #FILE} in the metadata log directory, and the first active controller of the new cluster writes them
 * into the metadata log with the initial feature levels, so the users can log in on the cluster's first start.
 *
 * <p>The file has one line per credential: {@code <mechanism> <base64 user> <iterations> <base64 salt> <base64
 * stored key> <base64 server key>}, readable by its owner only.
 */
public final class BootstrapScramCredentials {
    static final String FILE = "bootstrap-scram-credentials";
    private static final int SALT_BYTES = 32;
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64_DECODER = Base64.getDecoder();

    private BootstrapScramCredentials() {}

    /** Parses {@code --add-scram} arguments and derives their credentials; a malformed one is a ConfigException. */
    public static List<UserScramCredentialRecord> derive(List<String> arguments, SecureRandom random) {
        List<UserScramCredentialRecord> records = new ArrayList<>();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (String argument : arguments) {
            int equals = argument.indexOf('=');
            String mechanismName =
                    equals < 0 ? argument : argument.substring(0, equals).trim();
            ScramMechanism mechanism = ScramMechanism.forName(mechanismName)
                    .orElseThrow(() -> new ConfigException("--add-scram '" + argument + "' names " + mechanismName
                            + ", which is not a SCRAM mechanism: use SCRAM-SHA-256 or SCRAM-SHA-512."));
            String body = equals < 0 ? "" : argument.substring(equals + 1).trim();
            if (!body.startsWith("[") || !body.endsWith("]")) {
                throw new ConfigException("--add-scram '" + argument
                        + "' is not MECHANISM=[name=<user>,password=<password>], for example"
                        + " SCRAM-SHA-256=[name=alice,password=alice-secret].");
            }
            Map<String, String> fields = new LinkedHashMap<>();
            for (String field : body.substring(1, body.length() - 1).split(",")) {
                int eq = field.indexOf('=');
                if (eq <= 0) {
                    throw new ConfigException("--add-scram for " + mechanismName + " has a field without a value: "
                            + "expected name=<user>,password=<password>[,iterations=<n>].");
                }
                String value = field.substring(eq + 1).trim();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                fields.put(field.substring(0, eq).trim(), value);
            }
            for (String name : fields.keySet()) {
                if (!List.of("name", "password", "iterations").contains(name)) {
                    throw new ConfigException("--add-scram for " + mechanismName + " has field " + name
                            + ", which Varve does not take: give name, password and optionally iterations.");
                }
            }
            String user = fields.get("name");
            String password = fields.get("password");
            if (user == null || user.isEmpty() || password == null || password.isEmpty()) {
                throw new ConfigException(
                        "--add-scram for " + mechanismName + " needs both name=<user> and password=<password>.");
            }
            int iterations = ScramMechanism.MIN_ITERATIONS;
            if (fields.containsKey("iterations")) {
                try {
                    iterations = Integer.parseInt(fields.get("iterations"));
                } catch (NumberFormatException e) {
                    iterations = -1;
                }
                if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
                    throw new ConfigException("--add-scram for user " + user + ": iterations must be between "
                            + ScramMechanism.MIN_ITERATIONS + " and " + ScramMechanism.MAX_ITERATIONS + ".");
                }
            }
            if (seen.put(mechanismName + "/" + user, true) != null) {
                throw new ConfigException(
                        "--add-scram gives user " + user + " twice for " + mechanismName + ": give each once.");
            }
            byte[] salt = new byte[SALT_BYTES];
            random.nextBytes(salt);
            ScramCredential credential = mechanism.credential(password, salt, iterations);
            records.add(new UserScramCredentialRecord(
                    user,
                    mechanism.typeId(),
                    credential.salt(),
                    credential.storedKey(),
                    credential.serverKey(),
                    credential.iterations()));
        }
        return records;
    }

    /** Writes the credentials into the metadata log directory (nothing when there are none). */
    public static void write(Path metadataDir, List<UserScramCredentialRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        StringBuilder text = new StringBuilder();
        for (UserScramCredentialRecord r : records) {
            text.append(ScramMechanism.forTypeId(r.mechanism()).orElseThrow().mechanismName())
                    .append(' ')
                    .append(B64.encodeToString(r.name().getBytes(StandardCharsets.UTF_8)))
                    .append(' ')
                    .append(r.iterations())
                    .append(' ')
                    .append(B64.encodeToString(r.salt()))
                    .append(' ')
                    .append(B64.encodeToString(r.storedKey()))
                    .append(' ')
                    .append(B64.encodeToString(r.serverKey()))
                    .append('\n');
        }
        Path file = metadataDir.resolve(FILE);
        Files.createDirectories(metadataDir);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** The credentials written at format time; empty when there are none. */
    public static List<UserScramCredentialRecord> read(Path metadataDir) throws IOException {
        Path file = metadataDir.resolve(FILE);
        if (!Files.exists(file)) {
            return List.of();
        }
        List<UserScramCredentialRecord> records = new ArrayList<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            try {
                ScramMechanism mechanism = ScramMechanism.forName(parts[0]).orElseThrow();
                records.add(new UserScramCredentialRecord(
                        new String(B64_DECODER.decode(parts[1]), StandardCharsets.UTF_8),
                        mechanism.typeId(),
                        B64_DECODER.decode(parts[3]),
                        B64_DECODER.decode(parts[4]),
                        B64_DECODER.decode(parts[5]),
                        Integer.parseInt(parts[2])));
            } catch (RuntimeException e) {
                throw new IOException(
                        file + " line " + lineNumber + " is not a SCRAM credential written by varve format");
            }
        }
        return records;
    }
}
