import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A running replica of TheCocktailDB v1: an HTTP/1.1 server (keep-alive, pipelining-safe) on SwiftNIO.
///
/// Start one with ``start(_:)`` — in tests on port 0, then read ``port`` or ``baseURL`` — and stop it
/// with ``shutdown()``, or let ``withServer(_:_:)`` do both. Every endpoint lives under
/// `/api/json/v1/{any key}/`; the drinks' images under `/images/media/drink/` (see
/// ``imageURL(for:size:)``); `GET /__replica/stats` returns ``ReplicaStats`` as JSON.
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
    /// The root of the drinks' images here, e.g. `http://127.0.0.1:PORT/images/media/drink/`.
    public let imageBaseURL: String

    private let core: ReplicaCore
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let isShutDown = Mutex(false)

    private init(core: ReplicaCore, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.configuration = core.configuration
        self.catalogue = core.catalogue
        self.core = core
        self.group = group
        self.channel = channel
        self.port = core.configuration.port
        let root = Self.root(host: core.configuration.host, port: self.port)
        self.baseURL = root + "/api/json/v1/1/"
        self.imageBaseURL = root + Catalogue.imagePath
    }

    /// `http://HOST:PORT`, with an IPv6 host in brackets.
    private static func root(host: String, port: Int) -> String {
        let host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "http://\(host):\(port)"
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
        let slot = CoreSlot()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.threads)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // Accept nothing until the core exists: self-hosted image URLs need the bound port,
            // known only after binding. Connections wait in the listen backlog meanwhile.
            .serverChannelOption(.autoRead, value: false)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true,
                        withErrorHandling: true
                    )
                    try channel.pipeline.syncOperations.addHandler(ReplicaHTTPHandler(core: slot.core))
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
        var bound = configuration
        bound.port = port
        let imageBase = bound.selfHostedImages ? Self.root(host: bound.host, port: port) + Catalogue.imagePath : nil
        let core = ReplicaCore(configuration: bound, catalogue: catalogue, imageBase: imageBase)
        slot.core = core
        do {
            try await channel.setOption(.autoRead, value: true).get()
        } catch {
            try? await channel.close()
            try? await group.shutdownGracefully()
            throw ReplicaError(kind: .bindFailed, message: "could not start accepting connections: \(error)")
        }
        return ReplicaServer(core: core, group: group, channel: channel)
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

    /// The URL of `drink`'s image at `size` on this replica, e.g.
    /// `http://127.0.0.1:PORT/images/media/drink/<slug>.jpg/small`.
    public func imageURL(for drink: Catalogue.Drink, size: DrinkImageSize = .full) -> String {
        self.imageBaseURL + drink.imageSlug + ".jpg" + size.pathSuffix
    }

    /// The `strDrinkThumb` this replica serves for `drink`: its own ``imageURL(for:size:)`` with
    /// ``ReplicaConfiguration/selfHostedImages``, else the public host's (``Catalogue/Drink/thumbnail``).
    public func thumbnailURL(for drink: Catalogue.Drink) -> String {
        self.configuration.selfHostedImages ? self.imageURL(for: drink) : drink.thumbnail
    }

    /// The JPEG bytes this replica serves for `drink` at `size`, without a request: for checking
    /// downloaded files. Two replicas with the same seed serve the same bytes.
    public func imageBytes(for drink: Catalogue.Drink, size: DrinkImageSize = .full) -> [UInt8] {
        let body = self.core.images.image(slug: drink.imageSlug, size: size).body
        return Array(body.readableBytesView)
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
