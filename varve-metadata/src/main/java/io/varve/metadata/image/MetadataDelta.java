package io.varve.metadata.image;

import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.ClientQuotaRecord;
import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.ProducerIdsRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.RemoveAccessControlEntryRecord;
import io.varve.metadata.record.RemoveTopicRecord;
import io.varve.metadata.record.RemoveUserScramCredentialRecord;
import io.varve.metadata.record.TopicRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import io.varve.metadata.record.UserScramCredentialRecord;
import java.util.Objects;

/**
 * Changes replayed from records on top of a base {@link MetadataImage}. Each part (features, topics,
 * configs, cluster, producer ids) gets a delta only when a record touches it, so {@link #apply(long)} copies
 * only changed parts and publishers can ask what changed (a null part delta means "unchanged").
 * Not thread-safe: built by one thread, then handed over read-only.
 */
public final class MetadataDelta {

    private final MetadataImage base;
    private FeaturesDelta featuresDelta;
    private TopicsDelta topicsDelta;
    private ConfigsDelta configsDelta;
    private ClusterDelta clusterDelta;
    private ProducerIdsDelta producerIdsDelta;
    private ScramDelta scramDelta;
    private AclsDelta aclsDelta;
    private ClientQuotasDelta clientQuotasDelta;
    private DelegationTokensDelta delegationTokensDelta;

    public MetadataDelta(MetadataImage base) {
        this.base = Objects.requireNonNull(base, "base");
    }

    public MetadataImage base() {
        return base;
    }

    /**
     * Applies one record.
     *
     * @throws IllegalStateException if the record contradicts the state (the log is inconsistent)
     */
    public void replay(MetadataRecord record) {
        switch (record.type()) {
            case TOPIC -> topics().replay((TopicRecord) record);
            case PARTITION -> topics().replay((PartitionRecord) record);
            case PARTITION_CHANGE -> topics().replay((PartitionChangeRecord) record);
            case REMOVE_TOPIC -> {
                String name = topics().replay((RemoveTopicRecord) record);
                configs().removeResource(ConfigResource.topic(name));
            }
            case CONFIG -> configs().replay((ConfigRecord) record);
            case PRODUCER_IDS -> producerIds().replay((ProducerIdsRecord) record);
            case REGISTER_BROKER -> cluster().replay((RegisterBrokerRecord) record);
            case BROKER_REGISTRATION_CHANGE -> cluster().replay((BrokerRegistrationChangeRecord) record);
            case UNREGISTER_BROKER -> cluster().replay((UnregisterBrokerRecord) record);
            case FEATURE_LEVEL -> features().replay((FeatureLevelRecord) record);
            case USER_SCRAM_CREDENTIAL -> scram().replay((UserScramCredentialRecord) record);
            case REMOVE_USER_SCRAM_CREDENTIAL -> scram().replay((RemoveUserScramCredentialRecord) record);
            case ACCESS_CONTROL_ENTRY -> acls().replay((AccessControlEntryRecord) record);
            case REMOVE_ACCESS_CONTROL_ENTRY -> acls().replay((RemoveAccessControlEntryRecord) record);
            case CLIENT_QUOTA -> clientQuotas().replay((ClientQuotaRecord) record);
            case DELEGATION_TOKEN -> delegationTokens().replay((io.varve.metadata.record.DelegationTokenRecord) record);
            case REMOVE_DELEGATION_TOKEN ->
                delegationTokens().replay((io.varve.metadata.record.RemoveDelegationTokenRecord) record);
            default -> throw new IllegalStateException("no replay for " + record.type());
        }
    }

    private FeaturesDelta features() {
        if (featuresDelta == null) {
            featuresDelta = new FeaturesDelta(base.features());
        }
        return featuresDelta;
    }

    private TopicsDelta topics() {
        if (topicsDelta == null) {
            topicsDelta = new TopicsDelta(base.topics());
        }
        return topicsDelta;
    }

    private ConfigsDelta configs() {
        if (configsDelta == null) {
            configsDelta = new ConfigsDelta(base.configs());
        }
        return configsDelta;
    }

    private ClusterDelta cluster() {
        if (clusterDelta == null) {
            clusterDelta = new ClusterDelta(base.cluster());
        }
        return clusterDelta;
    }

    private ProducerIdsDelta producerIds() {
        if (producerIdsDelta == null) {
            producerIdsDelta = new ProducerIdsDelta(base.producerIds());
        }
        return producerIdsDelta;
    }

    private ScramDelta scram() {
        if (scramDelta == null) {
            scramDelta = new ScramDelta(base.scram());
        }
        return scramDelta;
    }

    private AclsDelta acls() {
        if (aclsDelta == null) {
            aclsDelta = new AclsDelta(base.acls());
        }
        return aclsDelta;
    }

    private ClientQuotasDelta clientQuotas() {
        if (clientQuotasDelta == null) {
            clientQuotasDelta = new ClientQuotasDelta(base.clientQuotas());
        }
        return clientQuotasDelta;
    }

    /** Client quota changes, or null if none. */
    private DelegationTokensDelta delegationTokens() {
        if (delegationTokensDelta == null) {
            delegationTokensDelta = new DelegationTokensDelta(base.delegationTokens());
        }
        return delegationTokensDelta;
    }

    public ClientQuotasDelta clientQuotasDelta() {
        return clientQuotasDelta;
    }

    /** ACL changes, or null if none. */
    public AclsDelta aclsDelta() {
        return aclsDelta;
    }

    /** SCRAM credential changes, or null if none. */
    public ScramDelta scramDelta() {
        return scramDelta;
    }

    /** Finalized feature level changes, or null if none. */
    public FeaturesDelta featuresDelta() {
        return featuresDelta;
    }

    /** Topic changes, or null if no record touched topics. */
    public TopicsDelta topicsDelta() {
        return topicsDelta;
    }

    /** Config changes, or null if none. */
    public ConfigsDelta configsDelta() {
        return configsDelta;
    }

    /** Broker registrations and their fencing, or null if none. */
    public ClusterDelta clusterDelta() {
        return clusterDelta;
    }

    /** Producer-id allocations, or null if none. */
    public ProducerIdsDelta producerIdsDelta() {
        return producerIdsDelta;
    }

    /** The image after every replayed record; {@code offset} is that of the last one. */
    public MetadataImage apply(long offset) {
        if (offset < base.offset()) {
            throw new IllegalArgumentException("offset " + offset + " is before the base image's " + base.offset());
        }
        return new MetadataImage(
                offset,
                featuresDelta == null ? base.features() : featuresDelta.apply(),
                topicsDelta == null ? base.topics() : topicsDelta.apply(),
                configsDelta == null ? base.configs() : configsDelta.apply(),
                clusterDelta == null ? base.cluster() : clusterDelta.apply(),
                producerIdsDelta == null ? base.producerIds() : producerIdsDelta.apply(),
                scramDelta == null ? base.scram() : scramDelta.apply(),
                aclsDelta == null ? base.acls() : aclsDelta.apply(),
                clientQuotasDelta == null ? base.clientQuotas() : clientQuotasDelta.apply(),
                delegationTokensDelta == null ? base.delegationTokens() : delegationTokensDelta.apply());
    }
}
