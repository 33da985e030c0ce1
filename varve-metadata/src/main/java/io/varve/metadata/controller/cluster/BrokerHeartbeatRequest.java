package io.varve.metadata.controller.cluster;

/**
 * A BrokerHeartbeat: the broker's epoch, the offset of the metadata log it has applied, and whether it
 * wants to be fenced or to shut down.
 */
public record BrokerHeartbeatRequest(
        int brokerId, long brokerEpoch, long currentMetadataOffset, boolean wantFence, boolean wantShutDown) {

    public static BrokerHeartbeatRequest of(int brokerId, long brokerEpoch, long currentMetadataOffset) {
        return new BrokerHeartbeatRequest(brokerId, brokerEpoch, currentMetadataOffset, false, false);
    }
}
