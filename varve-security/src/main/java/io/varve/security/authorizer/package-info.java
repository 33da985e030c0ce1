/**
 * ACLs with Kafka's semantics and the decision over them ({@link io.varve.security.authorizer.AclAuthorizer}):
 * resource types, LITERAL / PREFIXED patterns and the {@code *} wildcard, ALLOW and DENY (DENY wins), the operations
 * an ALLOW implies, hosts, super users and {@code allow.everyone.if.no.acl.found}. The codes are the wire protocol's,
 * so the broker maps requests and metadata records onto them without tables of its own. Pure.
 */
package io.varve.security.authorizer;
