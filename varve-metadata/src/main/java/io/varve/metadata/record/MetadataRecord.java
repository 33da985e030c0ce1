package io.varve.metadata.record;

/**
 * One change of cluster metadata, as appended to the {@code __cluster_metadata} log. Records are
 * immutable values; {@link MetadataRecordSerde} turns them into bytes and back.
 */
public sealed interface MetadataRecord
        permits TopicRecord,
                PartitionRecord,
                PartitionChangeRecord,
                RemoveTopicRecord,
                ConfigRecord,
                ProducerIdsRecord,
                RegisterBrokerRecord,
                BrokerRegistrationChangeRecord,
                UnregisterBrokerRecord,
                FeatureLevelRecord,
                UserScramCredentialRecord,
                RemoveUserScramCredentialRecord,
                AccessControlEntryRecord,
                RemoveAccessControlEntryRecord,
                ClientQuotaRecord,
                DelegationTokenRecord,
                RemoveDelegationTokenRecord {

    MetadataRecordType type();
}
