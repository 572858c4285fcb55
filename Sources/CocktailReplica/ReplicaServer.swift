import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A running replica of TheCocktailDB v1: an HTTP/1.1 server (keep-alive, pipelining-safe) on SwiftNIO.
///
/// Start one with ``start(_:)`` — in tests on port 0, then read ``port`` or ``baseURL`` — and stop it
/// with ``shutdown()``, or let ``withServer(_:_:)`` do both. Every endpoint lives under
/// `/api/json/v1/{any key}/`; `GET /__replica/stats` returns ``ReplicaStats`` as JSON.
///
/// Thread-safe: all methods may be called from any thread or task. The server runs on its own
/// event loop threads (``ReplicaConfiguration/threads``), which ``shutdown()`` joins.
public final class ReplicaServer: Sendable {
    /// The configuration the server was started with (with the bound port in ``ReplicaConfiguration/port``).
    public let configuration: ReplicaConfiguration
    /// The catalogue being served.
    public let catalogue: Catalogue
    /// The bound TCP port.
    public let port: Int
    /// The base of every endpoint, e.g. `http://127.0.0.1:PORT/api/json/v1/1/`.
    public let baseURL: String

    private let core: ReplicaCore
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let isShutDown = Mutex(false)

    private init(core: ReplicaCore, group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int) {
        var configuration = core.configuration
        configuration.port = port
        self.configuration = configuration
        self.catalogue = core.catalogue
        self.core = core
        self.group = group
        self.channel = channel
        self.port = port
        let host =
            configuration.host.contains(":") && !configuration.host.hasPrefix("[")
            ? "[\(configuration.host)]" : configuration.host
        self.baseURL = "http://\(host):\(port)/api/json/v1/1/"
    }

    deinit {
        // A server dropped without `shutdown()` (a test that failed half-way, say) must not leave
        // its event loop threads behind; the callback form is safe on any thread.
        let wasShutDown = self.isShutDown.withLock { $0 }
        if !wasShutDown {
            self.channel.close(promise: nil)
            self.group.shutdownGracefully { _ in }
        }
    }

    /// Generates the catalogue, binds the socket and starts serving.
    ///
    /// - Parameter configuration: where to listen, what to serve, which faults to inject.
    /// - Returns: the running server; call ``shutdown()`` when done.
    /// - Throws: ``ReplicaError`` for an invalid configuration, a non-loopback host that was not
    ///   allowed, or a socket that could not be bound.
    public static func start(_ configuration: ReplicaConfiguration = ReplicaConfiguration()) async throws
        -> ReplicaServer
    {
        try configuration.validate()
        let catalogue = try Catalogue(
            seed: configuration.seed,
            scale: configuration.scale,
            legacyRate: configuration.legacyRate
        )
        let core = ReplicaCore(configuration: configuration, catalogue: catalogue)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true,
                        withErrorHandling: true
                    )
                    try channel.pipeline.syncOperations.addHandler(ReplicaHTTPHandler(core: core))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw ReplicaError(
                kind: .bindFailed,
                message: "could not listen on \(configuration.host):\(configuration.port): \(error)"
            )
        }
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            try? await group.shutdownGracefully()
            throw ReplicaError(kind: .bindFailed, message: "the listening socket has no port")
        }
        return ReplicaServer(core: core, group: group, channel: channel, port: port)
    }

    /// Runs `body` with a started server and shuts it down afterwards, also when `body` throws.
    public static func withServer<Result: Sendable>(
        _ configuration: ReplicaConfiguration = ReplicaConfiguration(),
        _ body: (ReplicaServer) async throws -> Result
    ) async throws -> Result {
        let server = try await ReplicaServer.start(configuration)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    /// The full URL of `pathAndQuery` relative to ``baseURL``, e.g. `url("lookup.php?i=11007")`.
    public func url(_ pathAndQuery: String) -> String {
        self.baseURL + pathAndQuery
    }

    /// The URL of the stats endpoint.
    public var statsURL: String {
        let root = self.baseURL.dropLast("/api/json/v1/1/".count)
        return root + Router.statsPath
    }

    /// A snapshot of the counters, the same as `GET /__replica/stats` returns.
    public func stats() -> ReplicaStats {
        self.core.stats.snapshot()
    }

    /// Stops listening, closes every connection and joins the event loop threads.
    ///
    /// Idempotent: later calls return at once.
    public func shutdown() async throws {
        let alreadyShutDown = self.isShutDown.withLock { isShutDown in
            defer { isShutDown = true }
            return isShutDown
        }
        guard !alreadyShutDown else { return }
        try? await self.channel.close()
        try await self.group.shutdownGracefully()
    }
}
