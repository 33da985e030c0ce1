package io.varve.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 listener on Netty's codec. Event loops only parse and write; routes run on a small worker pool with a
 * bounded queue (a request that finds it full gets 503), so a slow scrape never stalls a socket. Unknown paths get
 * 404 with a JSON error body, other methods than GET and HEAD 405.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);
    /** Requests are small GETs: a larger body is refused by the aggregator with 413. */
    private static final int MAX_REQUEST_BYTES = 64 * 1024;

    private static final int WORKER_QUEUE = 64;

    private final Map<String, HttpRoute> routes = new HashMap<>();
    /** Routes that take POSTed forms (the console's actions). */
    private final Map<String, HttpRoute> postRoutes = new HashMap<>();
    /** Routes for every path under a prefix (static assets), tried after the exact ones. */
    private final Map<String, HttpRoute> prefixRoutes = new HashMap<>();

    private final List<Channel> channels = new ArrayList<>();
    private EventLoopGroup group;
    private ThreadPoolExecutor workers;
    private HttpSecurity security = HttpSecurity.NONE;
    private RequestAuthentication authentication = new RequestAuthentication(HttpSecurity.NONE);

    /** Adds a route for an exact path; call before {@link #start}. */
    public HttpServer route(String path, HttpRoute route) {
        routes.put(path, route);
        return this;
    }

    /**
     * Adds a route for POSTs of a form to {@code path}; call before {@link #start}. A POST whose Origin header names
     * another host than the one it was sent to is refused with 403, so a page of another site cannot submit it.
     */
    public HttpServer routePost(String path, HttpRoute route) {
        postRoutes.put(path, route);
        return this;
    }

    /** Adds a route for every path that starts with {@code prefix}; call before {@link #start}. */
    public HttpServer routePrefix(String prefix, HttpRoute route) {
        prefixRoutes.put(prefix, route);
        return this;
    }

    private HttpRoute find(String path) {
        HttpRoute exact = routes.get(path);
        if (exact != null) {
            return exact;
        }
        String best = null;
        for (String prefix : prefixRoutes.keySet()) {
            if (path.startsWith(prefix) && (best == null || prefix.length() > best.length())) {
                best = prefix;
            }
        }
        return best == null ? null : prefixRoutes.get(best);
    }

    /**
     * Binds every endpoint. Throws {@link BindFailure} naming the endpoint that could not be bound, after releasing
     * what was bound.
     */
    public synchronized void start(List<HttpEndpoint> endpoints) {
        start(endpoints, HttpSecurity.NONE);
    }

    /**
     * Binds every endpoint, {@code https://} ones with {@code security}'s TLS context, and from then on lets only
     * requests in that pass its authentication (health probes excepted). Throws {@link BindFailure} as above.
     */
    public synchronized void start(List<HttpEndpoint> endpoints, HttpSecurity security) {
        this.authentication = new RequestAuthentication(security);
        this.security = security;
        workers = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(WORKER_QUEUE), r -> {
            Thread t = new Thread(r, "varve-http-worker");
            t.setDaemon(true);
            return t;
        });
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        for (HttpEndpoint e : endpoints) {
            if (e.tls() && security.sslContext() == null) {
                close();
                throw new IllegalArgumentException(e + " is https, but no TLS context was given");
            }
            ServerBootstrap bootstrap = bootstrap(e.tls() ? security.sslContext() : null);
            try {
                InetSocketAddress address = e.host().isEmpty()
                        ? new InetSocketAddress(e.port())
                        : new InetSocketAddress(e.host(), e.port());
                channels.add(bootstrap.bind(address).sync().channel());
                log.info(
                        "HTTP listener on {} (bound {}{})",
                        e,
                        channels.get(channels.size() - 1).localAddress(),
                        security.authenticates() ? ", authentication " + security.methods() : "");
            } catch (Exception ex) {
                close();
                throw new BindFailure(e, ex);
            }
        }
    }

    private ServerBootstrap bootstrap(io.netty.handler.ssl.SslContext tls) {
        return new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        }
                        ch.pipeline()
                                .addLast(new IdleStateHandler(0, 0, 60))
                                .addLast(new HttpServerCodec())
                                .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast(new Dispatcher());
                    }
                });
    }

    /** The port the {@code index}th endpoint is bound to (tests bind port 0). */
    public int boundPort(int index) {
        return ((InetSocketAddress) channels.get(index).localAddress()).getPort();
    }

    @Override
    public synchronized void close() {
        for (Channel c : channels) {
            c.close().syncUninterruptibly();
        }
        channels.clear();
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            group = null;
        }
        if (workers != null) {
            workers.shutdownNow();
            workers = null;
        }
    }

    /** An endpoint could not be bound. */
    public static final class BindFailure extends RuntimeException {
        private final HttpEndpoint endpoint;

        BindFailure(HttpEndpoint endpoint, Throwable cause) {
            super("cannot bind " + endpoint + ": " + rootMessage(cause), cause);
            this.endpoint = endpoint;
        }

        public HttpEndpoint endpoint() {
            return endpoint;
        }

        private static String rootMessage(Throwable t) {
            Throwable c = t;
            while (c.getCause() != null && c.getCause() != c) {
                c = c.getCause();
            }
            return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
        }
    }

    private final class Dispatcher extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            boolean head = request.method().equals(HttpMethod.HEAD);
            if (!request.decoderResult().isSuccess()) {
                write(ctx, HttpResponse.error(400, "The request could not be parsed."), false, false);
                return;
            }
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            String path = uri.path();
            boolean post = request.method().equals(HttpMethod.POST);
            HttpRoute route = post ? postRoutes.get(path) : find(path);
            if (route == null && (post ? find(path) != null : postRoutes.containsKey(path))) {
                write(ctx, HttpResponse.error(405, request.method() + " is not allowed on " + path), keepAlive, false);
                return;
            }
            if (route == null) {
                write(ctx, HttpResponse.error(404, "No such path: " + path), keepAlive, head);
                return;
            }
            if (!post && !head && !request.method().equals(HttpMethod.GET)) {
                write(ctx, HttpResponse.error(405, request.method() + " is not allowed on " + path), keepAlive, false);
                return;
            }
            if (path.startsWith("/console") && !security.authenticates() && !fromLoopback(ctx)) {
                // without authentication the console acts as the anonymous principal: this host only
                write(
                        ctx,
                        HttpResponse.error(
                                403,
                                "Without varve.http.authentication the console answers only on the loopback interface."),
                        false,
                        head);
                return;
            }
            Map<String, String> form = Map.of();
            if (post) {
                if (!sameOrigin(ctx, request)) {
                    write(ctx, HttpResponse.error(403, "A form from another origin may not post here."), false, false);
                    return;
                }
                form = new HashMap<>();
                QueryStringDecoder body = new QueryStringDecoder(
                        request.content().toString(java.nio.charset.StandardCharsets.UTF_8), false);
                for (Map.Entry<String, List<String>> e : body.parameters().entrySet()) {
                    form.put(
                            e.getKey(),
                            e.getValue().isEmpty() ? "" : e.getValue().get(0));
                }
            }
            Map<String, String> query = new HashMap<>();
            uri.parameters().forEach((k, v) -> query.put(k, v.isEmpty() ? "" : v.get(0)));
            boolean authenticate = security.authenticates() && !RequestAuthentication.exempt(path);
            String certificatePrincipal = authenticate ? authentication.certificatePrincipal(ctx.channel()) : null;
            String authorization = RequestAuthentication.authorizationHeader(request);
            String accept = request.headers().get(HttpHeaderNames.ACCEPT, "");
            String remoteHost = ctx.channel().remoteAddress() instanceof InetSocketAddress a
                    ? a.getAddress().getHostAddress()
                    : "";
            Map<String, String> fields = form;
            String method = request.method().name();
            try {
                workers.execute(() -> {
                    HttpResponse response;
                    try {
                        String principal = !authenticate
                                ? RequestAuthentication.ANONYMOUS
                                : certificatePrincipal != null
                                        ? certificatePrincipal
                                        : authentication.basicPrincipal(authorization);
                        response = principal == null
                                ? authentication.challenge()
                                : route.handle(
                                        new HttpRequest(method, path, query, accept, fields, principal, remoteHost));
                    } catch (Exception e) {
                        log.warn("HTTP {} {} failed", method, path, e);
                        response = HttpResponse.error(500, "The request failed: " + e);
                    }
                    HttpResponse done = response;
                    ctx.executor().execute(() -> write(ctx, done, keepAlive, head));
                });
            } catch (RejectedExecutionException e) {
                write(ctx, HttpResponse.error(503, "Too many requests in progress; try again."), false, head);
            }
        }

        private boolean fromLoopback(ChannelHandlerContext ctx) {
            return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress a
                    && a.getAddress() != null
                    && a.getAddress().isLoopbackAddress();
        }

        /** No Origin (not a browser), or an Origin whose host and port are the Host the request was sent to. */
        private boolean sameOrigin(ChannelHandlerContext ctx, FullHttpRequest request) {
            String origin = request.headers().get(HttpHeaderNames.ORIGIN);
            if (origin == null) {
                return true;
            }
            String host = request.headers().get(HttpHeaderNames.HOST, "");
            boolean tls = ctx.channel().pipeline().get(io.netty.handler.ssl.SslHandler.class) != null;
            return origin.equals((tls ? "https://" : "http://") + host);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof io.netty.handler.timeout.IdleStateEvent) {
                ctx.close(); // idle for a minute
            } else {
                ctx.fireUserEventTriggered(evt); // the TLS handshake's completion, among others
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }

        private void write(ChannelHandlerContext ctx, HttpResponse r, boolean keepAlive, boolean head) {
            FullHttpResponse out = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(r.status()),
                    head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(r.body()));
            out.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, r.contentType())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
            r.headers().forEach((name, value) -> out.headers().set(name, value));
            if (keepAlive) {
                out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                ctx.writeAndFlush(out);
            } else {
                // Said, not only done: an HTTP/1.1 client otherwise sends its next request on the closing connection.
                out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
