package io.varve.metadata.image;

import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.ProducerIdsRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The whole cluster metadata after applying the log up to {@link #offset()}. Immutable: readers keep
 * a reference and never lock; a {@link MetadataDelta} produces the next image, sharing every part
 * it did not change.
 *
 * @param offset the offset of the last record applied, or -1 for the empty image
 */
public record MetadataImage(
        long offset,
        FeaturesImage features,
        TopicsImage topics,
        ConfigsImage configs,
        ClusterImage cluster,
        ProducerIdsImage producerIds,
        ScramImage scram,
        AclsImage acls,
        ClientQuotasImage clientQuotas,
        DelegationTokensImage delegationTokens) {

    public static final MetadataImage EMPTY = new MetadataImage(
            -1,
            FeaturesImage.EMPTY,
            TopicsImage.EMPTY,
            ConfigsImage.EMPTY,
            ClusterImage.EMPTY,
            ProducerIdsImage.EMPTY,
            ScramImage.EMPTY,
            AclsImage.EMPTY,
            ClientQuotasImage.EMPTY,
            DelegationTokensImage.EMPTY);

    /** An image without SCRAM credentials or ACLs. */
    public MetadataImage(
            long offset,
            FeaturesImage features,
            TopicsImage topics,
            ConfigsImage configs,
            ClusterImage cluster,
            ProducerIdsImage producerIds) {
        this(offset, features, topics, configs, cluster, producerIds, ScramImage.EMPTY, AclsImage.EMPTY);
    }

    /** An image without client quotas. */
    public MetadataImage(
            long offset,
            FeaturesImage features,
            TopicsImage topics,
            ConfigsImage configs,
            ClusterImage cluster,
            ProducerIdsImage producerIds,
            ScramImage scram,
            AclsImage acls) {
        this(offset, features, topics, configs, cluster, producerIds, scram, acls, ClientQuotasImage.EMPTY);
    }

    /** An image without delegation tokens. */
    public MetadataImage(
            long offset,
            FeaturesImage features,
            TopicsImage topics,
            ConfigsImage configs,
            ClusterImage cluster,
            ProducerIdsImage producerIds,
            ScramImage scram,
            AclsImage acls,
            ClientQuotasImage clientQuotas) {
        this(
                offset,
                features,
                topics,
                configs,
                cluster,
                producerIds,
                scram,
                acls,
                clientQuotas,
                DelegationTokensImage.EMPTY);
    }

    public MetadataImage {
        if (offset < -1) {
            throw new IllegalArgumentException("offset must be >= -1: " + offset);
        }
        Objects.requireNonNull(features, "features");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(configs, "configs");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(producerIds, "producerIds");
        Objects.requireNonNull(scram, "scram");
        Objects.requireNonNull(acls, "acls");
        Objects.requireNonNull(clientQuotas, "clientQuotas");
        Objects.requireNonNull(delegationTokens, "delegationTokens");
    }

    public boolean isEmpty() {
        return equals(EMPTY);
    }

    /**
     * Records that rebuild this image when replayed onto {@link #EMPTY}: the seed of a snapshot,
     * and of a publisher that starts late.
     */
    public List<MetadataRecord> toRecords() {
        List<MetadataRecord> records = new ArrayList<>();
        writeRecords(records::add);
        return records;
    }

    /**
     * The records of {@link #toRecords()} handed to {@code out} one at a time, without a list of them: how a
     * snapshot streams a large image. Features first ({@code metadata.version} leads), then brokers, topics with
     * their partitions, configs, the producer-id state, SCRAM credentials, ACLs, client quotas and delegation tokens.
     */
    public void writeRecords(Consumer<MetadataRecord> out) {
        features.writeRecords(out);
        cluster.writeRecords(out);
        topics.writeRecords(out);
        configs.writeRecords(out);
        if (producerIds.nextProducerId() > 0) {
            out.accept(new ProducerIdsRecord(-1, producerIds.nextProducerId()));
        }
        scram.writeRecords(out);
        acls.writeRecords(out);
        clientQuotas.writeRecords(out);
        delegationTokens.writeRecords(out);
    }
}
