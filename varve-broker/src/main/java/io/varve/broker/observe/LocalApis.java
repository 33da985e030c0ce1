package io.varve.broker.observe;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.api.ApiRegistry;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.security.AuthorizationHook;
import io.varve.security.Principal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Kafka requests made inside this process: the console builds the same request a client would send and hands it to
 * the same handler, behind the same {@link AuthorizationHook}, on the same request executor. What the console shows
 * and changes is therefore exactly what a client with the console's principal would see and change.
 */
public final class LocalApis {
    private static final String CLIENT_ID = "varve-console";
    /** Where ACLs with a host see the console's requests come from: it binds loopback until HTTP authentication. */
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final ApiRegistry registry;
    /** Null without an authorizer, as for the dispatcher. */
    private final AuthorizationHook authorization;

    private final Executor requestExecutor;
    private final String listenerName;

    public LocalApis(
            ApiRegistry registry, AuthorizationHook authorization, Executor requestExecutor, String listenerName) {
        this.registry = registry;
        this.authorization = authorization;
        this.requestExecutor = requestExecutor;
        this.listenerName = listenerName;
    }

    /** Whom an in-process request comes from: a principal and the address its ACLs' host patterns are matched on. */
    public record Client(Principal principal, InetSocketAddress address) {
        /** {@code principal} on this host (the console while it binds loopback only). */
        public static Client local(Principal principal) {
            return new Client(principal, LOOPBACK);
        }

        /** {@code principal} (Kafka's {@code User:alice} form) from {@code host}; loopback when it is not an address. */
        public static Client of(String principal, String host) {
            InetSocketAddress address = LOOPBACK;
            // an address literal only (digits, dots, colons, hex): getByName then parses it and never looks a name up
            if (host != null && !host.isBlank() && host.matches("[0-9A-Fa-f.:]+")) {
                try {
                    address = new InetSocketAddress(InetAddress.getByName(host), 0);
                } catch (java.net.UnknownHostException notALiteral) {
                    address = LOOPBACK;
                }
            }
            return new Client(Principal.parse(principal), address);
        }
    }

    /** {@code body} at the newest version this broker handles, from {@code client}. */
    public <T extends ApiMessage> CompletableFuture<T> call(ApiKeys key, ApiMessage body, Client client) {
        ApiRegistry.Api api = registry.get(key);
        if (api == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("This node does not handle " + key));
        }
        return call(key, api.maxVersion(), body, client);
    }

    /** {@code body} at {@code version} (for example Fetch by topic name, before topic ids), from {@code client}. */
    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> CompletableFuture<T> call(
            ApiKeys key, short version, ApiMessage body, Client client) {
        ApiRegistry.Api api = registry.get(key);
        if (api == null || !api.handles(version)) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("This node does not handle " + key + " v" + version));
        }
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(key.id)
                .setRequestApiVersion(version)
                .setClientId(CLIENT_ID)
                .setCorrelationId(0);
        RequestContext request = new RequestContext(
                header,
                key,
                version,
                ClientFrames.asRequest(key, version, body),
                listenerName,
                client.address(),
                System.nanoTime(),
                client.principal());
        ApiHandler handler = authorization == null ? api.handler() : r -> authorization.handle(r, api.handler());
        return CompletableFuture.supplyAsync(() -> handler.handle(request), requestExecutor)
                .thenCompose(f -> (CompletableFuture<T>) f);
    }
}
