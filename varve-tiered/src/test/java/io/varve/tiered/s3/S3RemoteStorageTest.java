package io.varve.tiered.s3;

import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.tiered.RemoteStorageFactory;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageContractTest;
import io.varve.tiered.spi.RemoteStorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The contract against a real S3-compatible server (s3proxy in its own JVM on loopback), never a mock of the SDK. */
class S3RemoteStorageTest extends RemoteStorageContractTest {
    private static final String BUCKET = "varve-tiered";
    private static S3ProxyProcess proxy;
    private static Path proxyDir;

    @BeforeAll
    static void startS3Proxy() throws Exception {
        Path lib = S3ProxyProcess.libDir().orElse(null);
        Assumptions.assumeTrue(
                lib != null,
                "s3proxy jars are missing from target/s3proxy-lib: the build resolves them "
                        + "from src/test/s3proxy/pom.xml in generate-test-resources; run one online build of varve-tiered");
        proxyDir = Files.createTempDirectory("varve-s3proxy");
        proxy = S3ProxyProcess.start(lib, proxyDir);
        try (S3Client admin = adminClient()) {
            admin.createBucket(r -> r.bucket(BUCKET));
        }
    }

    @AfterAll
    static void stopS3Proxy() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (proxyDir != null) {
            try (var paths = Files.walk(proxyDir)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }

    private static S3Client adminClient() {
        return S3Client.builder()
                .endpointOverride(proxy.endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyProcess.ACCESS_KEY, S3ProxyProcess.SECRET_KEY)))
                .build();
    }

    /** Broker-style configuration, as {@code server.properties} would carry it. */
    private static Map<String, String> brokerConfig() {
        Map<String, String> config = new HashMap<>();
        config.put(RemoteStorageFactory.CLASS_NAME_CONFIG, RemoteStorageFactory.S3);
        config.put("rsm.config." + S3RemoteStorageConfig.BUCKET, BUCKET);
        config.put(
                "rsm.config." + S3RemoteStorageConfig.ENDPOINT, proxy.endpoint().toString());
        config.put("rsm.config." + S3RemoteStorageConfig.REGION, "us-east-1");
        config.put("rsm.config." + S3RemoteStorageConfig.PATH_STYLE, "true");
        config.put("rsm.config." + S3RemoteStorageConfig.ACCESS_KEY_ID, S3ProxyProcess.ACCESS_KEY);
        config.put("rsm.config." + S3RemoteStorageConfig.SECRET_ACCESS_KEY, S3ProxyProcess.SECRET_KEY);
        config.put("rsm.config." + S3RemoteStorageConfig.KEY_PREFIX, "cluster-1");
        config.put("rsm.config." + S3RemoteStorageConfig.MULTIPART_THRESHOLD, String.valueOf(5 * 1024 * 1024));
        config.put("rsm.config." + S3RemoteStorageConfig.MULTIPART_PART_SIZE, String.valueOf(5 * 1024 * 1024));
        config.put("rsm.config." + S3RemoteStorageConfig.API_CALL_TIMEOUT_MS, "30000");
        return config;
    }

    @Override
    protected RemoteStorage createStorage() {
        return RemoteStorageFactory.create(brokerConfig());
    }

    private static List<String> keys(String prefix) {
        try (S3Client admin = adminClient()) {
            return admin.listObjectsV2Paginator(r -> r.bucket(BUCKET).prefix(prefix)).contents().stream()
                    .map(S3Object::key)
                    .sorted()
                    .toList();
        }
    }

    @Test
    void objectsAreLaidOutByTopicIdPartitionAndZeroPaddedOffset() throws Exception {
        RemoteSegmentMetadata m = segment(4242, 5000);
        storage.copySegment(m, localSegment("layout", 100, true));
        String base = "cluster-1/orders-AAAAAAAAAAAAAAAAAAAAAQ/3/00000000000000004242-"
                + m.segmentId().id() + ".";
        assertThat(keys(base))
                .containsExactly(
                        base + "index",
                        base + "leader_epoch_checkpoint",
                        base + "log",
                        base + "snapshot",
                        base + "timeindex",
                        base + "txnindex");
        storage.deleteSegment(m);
        assertThat(keys(base)).isEmpty();
    }

    @Test
    void largeSegmentIsUploadedInPartsAndReadableAsOneObject() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        storage.copySegment(m, localSegment("parts", LARGE_SEGMENT_BYTES, false));
        String key = new io.varve.tiered.spi.ObjectKeys("cluster-1").logKey(m);
        try (S3Client admin = adminClient()) {
            var head = admin.headObject(r -> r.bucket(BUCKET).key(key));
            assertThat(head.contentLength()).isEqualTo(LARGE_SEGMENT_BYTES);
            assertThat(head.eTag()).endsWith("-2\""); // S3's ETag of a completed two-part upload
        }
    }

    @Test
    void deleteAbortsAMultipartUploadLeftByACrash() throws Exception {
        RemoteSegmentMetadata m = segment(0, 99);
        String key = new io.varve.tiered.spi.ObjectKeys("cluster-1").logKey(m);
        try (S3Client admin = adminClient()) {
            admin.createMultipartUpload(r -> r.bucket(BUCKET).key(key));
            assertThat(admin.listMultipartUploads(r -> r.bucket(BUCKET).prefix(key))
                            .uploads())
                    .hasSize(1);
            storage.deleteSegment(m);
            assertThat(admin.listMultipartUploads(r -> r.bucket(BUCKET).prefix(key))
                            .uploads())
                    .isEmpty();
        }
    }

    @Test
    void unreachableServerIsARetriableError() throws Exception {
        Map<String, String> config = brokerConfig();
        config.put("rsm.config." + S3RemoteStorageConfig.ENDPOINT, "http://127.0.0.1:" + S3ProxyProcess.freePort());
        config.put("rsm.config." + S3RemoteStorageConfig.API_CALL_TIMEOUT_MS, "3000");
        try (RemoteStorage unreachable = RemoteStorageFactory.create(config)) {
            RemoteSegmentMetadata m = segment(0, 9);
            assertThatThrownBy(() -> unreachable.copySegment(m, localSegment("nowhere", 10, false)))
                    .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                            .isTrue());
            assertThatThrownBy(() -> unreachable.fetchLogSegment(m, 0))
                    .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                            .isTrue());
        }
    }

    @Test
    void wrongCredentialsAndMissingBucketAreFatal() throws Exception {
        Map<String, String> badKey = brokerConfig();
        badKey.put("rsm.config." + S3RemoteStorageConfig.SECRET_ACCESS_KEY, "wrong");
        Map<String, String> noBucket = brokerConfig();
        noBucket.put("rsm.config." + S3RemoteStorageConfig.BUCKET, "no-such-bucket");
        for (Map<String, String> config : List.of(badKey, noBucket)) {
            try (RemoteStorage broken = RemoteStorageFactory.create(config)) {
                assertThatThrownBy(() -> broken.copySegment(segment(0, 9), localSegment("denied", 10, false)))
                        .isInstanceOfSatisfying(RemoteStorageException.class, e -> assertThat(e.retriable())
                                .isFalse());
            }
        }
    }

    @Test
    void configRejectsHalfCredentialsAndTinyParts() {
        Map<String, String> config =
                new HashMap<>(Map.of(S3RemoteStorageConfig.BUCKET, "b", S3RemoteStorageConfig.ACCESS_KEY_ID, "x"));
        assertThatThrownBy(() -> S3RemoteStorageConfig.fromConfig(config)).hasMessageContaining("must be set together");
        Map<String, String> tiny =
                Map.of(S3RemoteStorageConfig.BUCKET, "b", S3RemoteStorageConfig.MULTIPART_PART_SIZE, "1024");
        assertThatThrownBy(() -> S3RemoteStorageConfig.fromConfig(tiny)).hasMessageContaining("at least");
        assertThat(S3RemoteStorageConfig.fromConfig(Map.of(
                                S3RemoteStorageConfig.BUCKET,
                                "b",
                                S3RemoteStorageConfig.SECRET_ACCESS_KEY,
                                "s",
                                S3RemoteStorageConfig.ACCESS_KEY_ID,
                                "a"))
                        .toString())
                .doesNotContain("s,")
                .contains("staticCredentials=true");
    }
}
