/**
 * A cluster of real {@code varve server} processes for fault tests: {@link io.varve.it.cluster.ClusterProcesses}
 * starts combined nodes or controllers and brokers on loopback ports or each in its own network namespace
 * ({@link io.varve.it.cluster.PrivateNetwork}), kills, stops, pauses and partitions them by PID and by route, and
 * reads each node's view of the quorum over DescribeQuorum ({@link io.varve.it.cluster.NodeRequests}: one request to
 * one node, never routed by a client; {@link io.varve.it.cluster.QuorumWatcher} keeps a
 * history of them to check one leader per epoch). The ITs beside it prove what users of a cluster see when a
 * controller fails. Owns test code only; it reaches the product only through the {@code varve} command and the wire.
 */
package io.varve.it.cluster;
