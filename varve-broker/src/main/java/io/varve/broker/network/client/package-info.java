/**
 * The broker's outbound side: {@link io.varve.broker.network.client.NodeClient} sends Kafka requests to other nodes
 * (controllers, leaders of partitions this broker follows, coordinators' peers) over one connection per address.
 */
package io.varve.broker.network.client;
