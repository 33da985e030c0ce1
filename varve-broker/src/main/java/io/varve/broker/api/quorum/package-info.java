/**
 * The metadata quorum as clients and Kafka's tools see it (DescribeQuorum). Owns no quorum state: it reads the Raft
 * node's; must not touch the controller or logs.
 */
package io.varve.broker.api.quorum;
