/**
 * KIP-1071 streams groups end to end: Kafka Streams 4.4 with {@code group.protocol=streams}, the Admin client's
 * streams group calls and Kafka 4.4's {@code kafka-streams-groups} tool against a real broker. The exactly-once
 * test under both group protocols lives with the other transaction tests ({@code txn.StreamsExactlyOnceIT}).
 */
package io.varve.it.streams;
