/**
 * The broker's outbound side: {@link io.varve.broker.network.client.NodeClient} sends Kafka requests to other nodes
 * (controllers, leaders of partitions this broker follows, coordinators' peers) over one connection per address, and
 * {@link io.varve.broker.network.client.ClientSecurity} makes each such connection prove who it is as the target
 * listener asks: TLS with the broker's certificate, and a SASL login before any other request.
 */
package io.varve.broker.network.client;
