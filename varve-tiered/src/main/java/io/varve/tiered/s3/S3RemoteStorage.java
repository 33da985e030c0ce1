package io.varve.tiered.s3;

import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.BoundedInputStream;
import io.varve.tiered.spi.IndexType;
import io.varve.tiered.spi.ObjectKeys;
import io.varve.tiered.spi.RemoteResourceNotFoundException;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import io.varve.tiered.spi.SegmentFiles;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;

/**
 * {@link RemoteStorage} on S3 or any S3-compatible store. Objects up to the multipart threshold are one PUT (atomic in
 * S3); larger ones are a multipart upload, aborted on failure so no parts linger, and only visible once completed.
 * Reads are ranged GETs. Network errors, throttling and 5xx are retriable; 4xx are not; a missing key is
 * {@link RemoteResourceNotFoundException}. The SDK's own retries (with backoff) run first, within the call timeouts.
 */
public final class S3RemoteStorage implements RemoteStorage {
    private static final Logger log = LoggerFactory.getLogger(S3RemoteStorage.class);

    private final S3RemoteStorageConfig config;
    private final ObjectKeys keys;
    private final S3Client s3;

    public S3RemoteStorage(S3RemoteStorageConfig config) {
        this.config = config;
        this.keys = new ObjectKeys(config.keyPrefix());
        this.s3 = buildClient(config);
        log.info("S3 remote storage ready: {}", config);
    }

    /** Builds the backend from its {@code rsm.config.*} keys (prefix already stripped). */
    public static S3RemoteStorage fromConfig(Map<String, String> config) {
        return new S3RemoteStorage(S3RemoteStorageConfig.fromConfig(config));
    }

    private static S3Client buildClient(S3RemoteStorageConfig config) {
        AwsCredentialsProvider credentials = config.accessKeyId().isPresent()
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        config.accessKeyId().get(), config.secretAccessKey().orElseThrow()))
                : DefaultCredentialsProvider.builder().build();
        S3ClientBuilder builder = S3Client.builder()
                .region(Region.of(config.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(config.pathStyleAccess())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(Apache5HttpClient.builder().maxConnections(config.maxConnections()))
                .overrideConfiguration(o -> o.apiCallTimeout(config.apiCallTimeout())
                        .apiCallAttemptTimeout(config.apiCallAttemptTimeout()));
        config.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    @Override
    public void copySegment(RemoteSegmentMetadata metadata, SegmentFiles files) throws RemoteStorageException {
        String what = "copying segment " + metadata.segmentId();
        try {
            for (IndexType type : IndexType.values()) {
                String key = keys.indexKey(metadata, type);
                if (type == IndexType.LEADER_EPOCH) {
                    s3.putObject(
                            r -> r.bucket(config.bucket()).key(key),
                            RequestBody.fromByteBuffer(
                                    files.leaderEpochCheckpoint().duplicate()));
                } else {
                    Optional<Path> source = files.file(type);
                    if (source.isPresent()) {
                        upload(source.get(), key);
                    }
                }
            }
            upload(files.log(), keys.logKey(metadata));
        } catch (SdkException e) {
            throw translate(what, e);
        } catch (IOException | UncheckedIOException e) {
            throw new RemoteStorageException(what + ": reading the local files failed: " + e, e, true);
        }
        log.info(
                "Copied remote segment {} [{}, {}] to s3://{}/{}",
                metadata.segmentId(),
                metadata.startOffset(),
                metadata.endOffset(),
                config.bucket(),
                keys.logKey(metadata));
    }

    private void upload(Path file, String key) throws IOException {
        long sizeBytes = Files.size(file);
        if (sizeBytes <= config.multipartThresholdBytes()) {
            s3.putObject(r -> r.bucket(config.bucket()).key(key), RequestBody.fromFile(file));
        } else {
            uploadMultipart(file, key, sizeBytes);
        }
    }

    private void uploadMultipart(Path file, String key, long sizeBytes) {
        long partSizeBytes = Math.max(
                config.multipartPartSizeBytes(),
                (sizeBytes + S3RemoteStorageConfig.MAX_PARTS - 1) / S3RemoteStorageConfig.MAX_PARTS);
        String uploadId = s3.createMultipartUpload(
                        r -> r.bucket(config.bucket()).key(key))
                .uploadId();
        boolean completed = false;
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int partNumber = 1;
            for (long position = 0; position < sizeBytes; position += partSizeBytes, partNumber++) {
                long start = position;
                long length = Math.min(partSizeBytes, sizeBytes - position);
                int number = partNumber;
                String etag = s3.uploadPart(
                                r -> r.bucket(config.bucket())
                                        .key(key)
                                        .uploadId(uploadId)
                                        .partNumber(number)
                                        .contentLength(length),
                                RequestBody.fromContentProvider(
                                        () -> openRange(file, start, length), length, "application/octet-stream"))
                        .eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            }
            s3.completeMultipartUpload(
                    r -> r.bucket(config.bucket()).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)));
            completed = true;
            log.debug("Uploaded {} bytes to s3://{}/{} in {} parts", sizeBytes, config.bucket(), key, parts.size());
        } finally {
            if (!completed) {
                abortQuietly(key, uploadId);
            }
        }
    }

    private static InputStream openRange(Path file, long start, long length) {
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            channel.position(start);
            // buffered: the SDK reads the part twice (hash, then send), partly in small reads
            return new BufferedInputStream(new BoundedInputStream(Channels.newInputStream(channel), length), 64 * 1024);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void abortQuietly(String key, String uploadId) {
        try {
            s3.abortMultipartUpload(r -> r.bucket(config.bucket()).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            log.warn(
                    "Could not abort multipart upload {} of s3://{}/{}: {}",
                    uploadId,
                    config.bucket(),
                    key,
                    e.toString());
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteSegmentMetadata metadata, long startPosition, long endPosition)
            throws RemoteStorageException {
        if (startPosition < 0 || endPosition < startPosition) {
            throw new RemoteStorageException(
                    "bad byte range [" + startPosition + ", " + endPosition + "] for " + metadata.segmentId(), false);
        }
        String range = endPosition >= Long.MAX_VALUE - 1
                ? "bytes=" + startPosition + "-"
                : "bytes=" + startPosition + "-" + endPosition;
        return get(metadata, keys.logKey(metadata), range);
    }

    @Override
    public InputStream fetchIndex(RemoteSegmentMetadata metadata, IndexType indexType) throws RemoteStorageException {
        return get(metadata, keys.indexKey(metadata, indexType), null);
    }

    private InputStream get(RemoteSegmentMetadata metadata, String key, String range) throws RemoteStorageException {
        try {
            return s3.getObject(r -> r.bucket(config.bucket()).key(key).range(range));
        } catch (SdkException e) {
            throw translate(
                    "reading s3://" + config.bucket() + "/" + key + (range == null ? "" : " " + range) + " of segment "
                            + metadata.segmentId(),
                    e);
        }
    }

    @Override
    public void deleteSegment(RemoteSegmentMetadata metadata) throws RemoteStorageException {
        List<ObjectIdentifier> objects = new ArrayList<>();
        objects.add(ObjectIdentifier.builder().key(keys.logKey(metadata)).build());
        for (IndexType type : IndexType.values()) {
            objects.add(ObjectIdentifier.builder()
                    .key(keys.indexKey(metadata, type))
                    .build());
        }
        String what = "deleting segment " + metadata.segmentId();
        try {
            abortDanglingUploads(metadata);
            DeleteObjectsResponse response = s3.deleteObjects(r -> r.bucket(config.bucket())
                    .delete(Delete.builder().objects(objects).quiet(true).build()));
            List<S3Error> errors = response.errors();
            if (!errors.isEmpty()) {
                S3Error first = errors.get(0);
                boolean retriable = !"AccessDenied".equals(first.code());
                throw new RemoteStorageException(
                        what + ": " + errors.size() + " objects not deleted, first " + first.key() + ": " + first.code()
                                + " " + first.message(),
                        retriable);
            }
        } catch (SdkException e) {
            throw translate(what, e);
        }
        log.info("Deleted remote segment {} from s3://{}", metadata.segmentId(), config.bucket());
    }

    /** A crash during a multipart upload leaves invisible parts that still cost money: abort them with the segment. */
    private void abortDanglingUploads(RemoteSegmentMetadata metadata) {
        String logKey = keys.logKey(metadata);
        String segmentPrefix = logKey.substring(0, logKey.length() - ObjectKeys.LOG_SUFFIX.length());
        List<MultipartUpload> uploads;
        try {
            uploads = s3.listMultipartUploads(r -> r.bucket(config.bucket()).prefix(segmentPrefix))
                    .uploads();
        } catch (AwsServiceException e) {
            // Some S3-compatible stores do not implement the listing; a lifecycle rule then cleans up.
            log.debug("Cannot list multipart uploads under {}: {}", segmentPrefix, e.toString());
            return;
        }
        for (MultipartUpload upload : uploads) {
            abortQuietly(upload.key(), upload.uploadId());
        }
    }

    static RemoteStorageException translate(String what, SdkException e) {
        if (e instanceof AwsServiceException service) {
            int status = service.statusCode();
            String code = service.awsErrorDetails() == null
                    ? null
                    : service.awsErrorDetails().errorCode();
            if (status == 404 && !"NoSuchBucket".equals(code)) {
                return new RemoteResourceNotFoundException(what + ": not found (" + code + ")", e);
            }
            boolean retriable = status >= 500
                    || status == 429
                    || status == 408
                    || service.isThrottlingException()
                    || "RequestTimeout".equals(code)
                    || "SlowDown".equals(code);
            return new RemoteStorageException(
                    what + " failed: HTTP " + status + " " + code + ": " + service.getMessage(), e, retriable);
        }
        boolean retriable = e instanceof SdkClientException || e.retryable();
        return new RemoteStorageException(what + " failed: " + e.getMessage(), e, retriable);
    }

    @Override
    public void putMetadata(TopicIdPartition partition, String name, byte[] content) throws RemoteStorageException {
        String key = keys.metadataKey(partition, name);
        try {
            s3.putObject(r -> r.bucket(config.bucket()).key(key), RequestBody.fromBytes(content));
        } catch (SdkException e) {
            throw translate("writing s3://" + config.bucket() + "/" + key, e);
        }
    }

    @Override
    public Optional<byte[]> getMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        String key = keys.metadataKey(partition, name);
        try {
            return Optional.of(
                    s3.getObjectAsBytes(r -> r.bucket(config.bucket()).key(key)).asByteArray());
        } catch (SdkException e) {
            RemoteStorageException translated = translate("reading s3://" + config.bucket() + "/" + key, e);
            if (translated instanceof RemoteResourceNotFoundException) {
                return Optional.empty();
            }
            throw translated;
        }
    }

    @Override
    public List<String> listMetadata(TopicIdPartition partition) throws RemoteStorageException {
        String prefix = keys.metadataPrefix(partition);
        List<String> names = new ArrayList<>();
        try {
            // S3 lists keys in UTF-8 binary order, pages of at most 1000: the paginator follows the continuation
            s3.listObjectsV2Paginator(r -> r.bucket(config.bucket()).prefix(prefix))
                    .contents()
                    .forEach(o -> names.add(o.key().substring(prefix.length())));
        } catch (SdkException e) {
            throw translate("listing s3://" + config.bucket() + "/" + prefix, e);
        }
        names.sort(null);
        return names;
    }

    @Override
    public void deleteMetadata(TopicIdPartition partition, String name) throws RemoteStorageException {
        String key = keys.metadataKey(partition, name);
        try {
            s3.deleteObject(r -> r.bucket(config.bucket()).key(key));
        } catch (SdkException e) {
            RemoteStorageException translated = translate("deleting s3://" + config.bucket() + "/" + key, e);
            if (!(translated instanceof RemoteResourceNotFoundException)) {
                throw translated;
            }
        }
    }

    @Override
    public void close() {
        s3.close();
    }
}
