package io.varve.broker.raft;

/**
 * What the controller listener adds to the core's answers: where each replica listens ({@code addresses}: the
 * leader's endpoint in fetch answers, static voters' endpoints in DescribeQuorum), and {@code wallClockOffsetMs},
 * which turns the core's monotonic milliseconds into wall-clock ones for DescribeQuorum's timestamps, as Kafka reports
 * them.
 */
public record ControllerQuorumInfo(RaftAddressBook addresses, long wallClockOffsetMs) {}
