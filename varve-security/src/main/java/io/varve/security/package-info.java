/**
 * Who a connection is: {@link io.varve.security.Principal} and the pure logic that decides it. Sub-packages:
 * {@code ssl} (a client certificate's subject to a principal, {@code ssl.principal.mapping.rules}) and {@code sasl}
 * (the server side of the SASL mechanisms, their credentials and the JAAS text they are configured with). Nothing
 * here touches a socket, a thread or Netty: the broker's network layer feeds bytes in and maps failures to Kafka's
 * error codes.
 */
package io.varve.security;
