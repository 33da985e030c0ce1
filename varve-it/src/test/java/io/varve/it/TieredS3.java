package io.varve.it;

import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.s3.S3ProxyProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A real S3-compatible server (s3proxy in its own JVM on loopback) with one bucket, for the tiered-storage
 * integration tests: the broker keys that point a node at it, listings of what the bucket holds, and a stop and a
 * restart on the same port with the same data.
 */
final class TieredS3 implements AutoCloseable {
    static final String BUCKET = "varve-it";

    private final Path lib;
    private final Path workDir;
    private final int port;
    private S3ProxyProcess proxy;

    private TieredS3(Path lib, Path workDir, int port) {
        this.lib = lib;
        this.workDir = workDir;
        this.port = port;
    }

    /** Starts s3proxy and creates the bucket; skips the calling test class when s3proxy's jars are missing. */
    static TieredS3 start() throws Exception {
        Path lib = S3ProxyProcess.libDir().orElse(null);
        Assumptions.assumeTrue(
                lib != null,
                "s3proxy jars are missing from varve-tiered/target/s3proxy-lib: run one "
                        + "online build of varve-tiered (it resolves them from src/test/s3proxy/pom.xml)");
        TieredS3 s3 = new TieredS3(lib, Files.createTempDirectory("varve-it-s3"), S3ProxyProcess.freePort());
        s3.startProxy();
        try (S3Client client = s3.client()) {
            client.createBucket(r -> r.bucket(BUCKET));
        }
        return s3;
    }

    void startProxy() throws IOException, InterruptedException {
        proxy = S3ProxyProcess.start(lib, workDir, port);
    }

    /** Stops the server (by PID); its data stays for {@link #startProxy()}. */
    void stopProxy() {
        proxy.close();
    }

    S3Client client() {
        return S3Client.builder()
                .endpointOverride(proxy.endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyProcess.ACCESS_KEY, S3ProxyProcess.SECRET_KEY)))
                .build();
    }

    /** Broker keys for an S3 backend on this server, objects under {@code keyPrefix}, fast retries. */
    Map<String, String> brokerConfig(String keyPrefix) {
        Map<String, String> config = new HashMap<>();
        config.put("remote.log.storage.manager.class.name", "s3");
        config.put("rsm.config.s3.bucket.name", BUCKET);
        config.put("rsm.config.s3.endpoint.url", "http://127.0.0.1:" + port);
        config.put("rsm.config.s3.region", "us-east-1");
        config.put("rsm.config.s3.path.style.access.enabled", "true");
        config.put("rsm.config.s3.credentials.access.key.id", S3ProxyProcess.ACCESS_KEY);
        config.put("rsm.config.s3.credentials.secret.access.key", S3ProxyProcess.SECRET_KEY);
        config.put("rsm.config.key.prefix", keyPrefix);
        // an outage is a refused connection (fails fast); a slow test machine must not time out a healthy upload
        config.put("rsm.config.s3.api.call.timeout.ms", "30000");
        config.put("rsm.config.s3.api.call.attempt.timeout.ms", "15000");
        config.put("remote.log.manager.task.interval.ms", "200");
        config.put("remote.log.manager.task.retry.backoff.ms", "200");
        config.put("remote.log.manager.task.retry.backoff.max.ms", "1000");
        config.put("log.retention.check.interval.ms", "200");
        return config;
    }

    /** The same keys as {@code --override} arguments of {@code varve server}. */
    static String[] asOverrides(Map<String, String> config) {
        List<String> args = new ArrayList<>();
        config.forEach((k, v) -> {
            args.add("--override");
            args.add(k + "=" + v);
        });
        return args.toArray(String[]::new);
    }

    /** Every object key under {@code keyPrefix}. */
    Set<String> keys(String keyPrefix) {
        Set<String> keys = new TreeSet<>();
        try (S3Client client = client()) {
            for (S3Object object : client.listObjectsV2Paginator(
                            r -> r.bucket(BUCKET).prefix(keyPrefix + "/"))
                    .contents()) {
                keys.add(object.key());
            }
        }
        return keys;
    }

    /** Object keys under {@code keyPrefix} of segment log files ({@code ...-<segment id>.log}). */
    Set<String> logKeys(String keyPrefix) {
        Set<String> keys = new TreeSet<>(keys(keyPrefix));
        keys.removeIf(key -> !key.endsWith(".log"));
        return keys;
    }

    /** The segment ids named by object keys. */
    static Set<String> segmentIds(Set<String> keys) {
        Set<String> ids = new TreeSet<>();
        for (String key : keys) {
            String name = key.substring(key.lastIndexOf('/') + 1, key.lastIndexOf('.'));
            ids.add(name.substring(name.indexOf('-') + 1));
        }
        return ids;
    }

    /**
     * The remote segments recorded in a stopped broker's metadata store of {@code logDir}, every partition, any
     * state (a finished deletion is forgotten).
     */
    static List<RemoteSegmentMetadata> recordedSegments(Path logDir) throws IOException {
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(logDir)) {
            return store.read(cache -> {
                List<RemoteSegmentMetadata> all = new ArrayList<>();
                for (TopicIdPartition partition : cache.partitions()) {
                    all.addAll(cache.segments(partition));
                }
                return all;
            });
        }
    }

    /** Bytes of live segment files ({@code .log}, not {@code .deleted}) in a partition directory. */
    static long localLogBytes(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    @Override
    public void close() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
        TestFiles.deleteRecursively(workDir);
    }
}
