/**
 * Handlers of the APIs only a controller serves: the broker lifecycle (BrokerRegistration, BrokerHeartbeat,
 * UnregisterBroker), AllocateProducerIds, Envelope (forwarded admin requests) and DescribeCluster for controller
 * endpoints. Each maps the wire request to the {@code QuorumController}'s terms and its reply back; nothing else.
 */
package io.varve.broker.api.controller;
