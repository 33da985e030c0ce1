package io.varve.tiered.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of {@link S3RemoteStorage}, read from the {@code rsm.config.*} keys with the prefix stripped (see the
 * module README for the list). Credentials: both keys or neither; neither means the AWS default provider chain
 * (environment, system properties, profile, container and instance roles).
 */
public record S3RemoteStorageConfig(
        String bucket,
        String region,
        Optional<URI> endpoint,
        boolean pathStyleAccess,
        Optional<String> accessKeyId,
        Optional<String> secretAccessKey,
        String keyPrefix,
        long multipartThresholdBytes,
        long multipartPartSizeBytes,
        Duration apiCallTimeout,
        Duration apiCallAttemptTimeout,
        int maxConnections) {

    public static final String BUCKET = "s3.bucket.name";
    public static final String REGION = "s3.region";
    public static final String ENDPOINT = "s3.endpoint.url";
    public static final String PATH_STYLE = "s3.path.style.access.enabled";
    public static final String ACCESS_KEY_ID = "s3.credentials.access.key.id";
    public static final String SECRET_ACCESS_KEY = "s3.credentials.secret.access.key";
    public static final String KEY_PREFIX = "key.prefix";
    public static final String MULTIPART_THRESHOLD = "s3.multipart.threshold.bytes";
    public static final String MULTIPART_PART_SIZE = "s3.multipart.part.size.bytes";
    public static final String API_CALL_TIMEOUT_MS = "s3.api.call.timeout.ms";
    public static final String API_CALL_ATTEMPT_TIMEOUT_MS = "s3.api.call.attempt.timeout.ms";
    public static final String MAX_CONNECTIONS = "s3.max.connections";

    /** S3 rejects parts smaller than this, except the last one. */
    public static final long MIN_PART_SIZE_BYTES = 5L * 1024 * 1024;
    /** S3 allows at most this many parts per upload. */
    public static final int MAX_PARTS = 10_000;

    public static final long DEFAULT_PART_SIZE_BYTES = 8L * 1024 * 1024;

    public S3RemoteStorageConfig {
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (bucket.isBlank()) {
            throw new IllegalArgumentException("rsm.config." + BUCKET + " must name the bucket for remote segments.");
        }
        if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
            throw new IllegalArgumentException("rsm.config." + ACCESS_KEY_ID + " and rsm.config." + SECRET_ACCESS_KEY
                    + " must be set together (or neither, to use the default AWS credentials chain).");
        }
        if (multipartPartSizeBytes < MIN_PART_SIZE_BYTES) {
            throw new IllegalArgumentException("rsm.config." + MULTIPART_PART_SIZE + " must be at least "
                    + MIN_PART_SIZE_BYTES + " bytes (the S3 minimum), not " + multipartPartSizeBytes + ".");
        }
        if (multipartThresholdBytes < 0) {
            throw new IllegalArgumentException("rsm.config." + MULTIPART_THRESHOLD + " must not be negative.");
        }
        if (maxConnections <= 0) {
            throw new IllegalArgumentException("rsm.config." + MAX_CONNECTIONS + " must be positive.");
        }
    }

    public static S3RemoteStorageConfig fromConfig(Map<String, String> config) {
        return new S3RemoteStorageConfig(
                config.getOrDefault(BUCKET, ""),
                config.getOrDefault(REGION, "us-east-1"),
                optional(config, ENDPOINT).map(URI::create),
                Boolean.parseBoolean(config.getOrDefault(PATH_STYLE, "false")),
                optional(config, ACCESS_KEY_ID),
                optional(config, SECRET_ACCESS_KEY),
                config.getOrDefault(KEY_PREFIX, ""),
                longValue(config, MULTIPART_THRESHOLD, DEFAULT_PART_SIZE_BYTES),
                longValue(config, MULTIPART_PART_SIZE, DEFAULT_PART_SIZE_BYTES),
                Duration.ofMillis(longValue(config, API_CALL_TIMEOUT_MS, 120_000)),
                Duration.ofMillis(longValue(config, API_CALL_ATTEMPT_TIMEOUT_MS, 30_000)),
                (int) longValue(config, MAX_CONNECTIONS, 50));
    }

    private static Optional<String> optional(Map<String, String> config, String key) {
        String value = config.get(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    private static long longValue(Map<String, String> config, String key, long defaultValue) {
        String value = config.get(key);
        if (value == null || value.isBlank()) {
            return defaultValue;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("rsm.config." + key + " must be a whole number, not '" + value + "'.");
        }
    }

    @Override
    public String toString() { // never print the secret
        return "S3RemoteStorageConfig[bucket=" + bucket + ", region=" + region + ", endpoint=" + endpoint
                + ", pathStyleAccess=" + pathStyleAccess + ", staticCredentials=" + accessKeyId.isPresent()
                + ", keyPrefix=" + keyPrefix + ", multipartThresholdBytes=" + multipartThresholdBytes
                + ", multipartPartSizeBytes=" + multipartPartSizeBytes + "]";
    }
}
