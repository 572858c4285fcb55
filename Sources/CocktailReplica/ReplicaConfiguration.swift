/// Everything a ``ReplicaServer`` needs: where to listen, which catalogue to serve, which faults.
///
/// The defaults serve the scale-1 catalogue of ``Catalogue/defaultSeed`` on an ephemeral loopback
/// port, with the free key's 100-result cap and no faults — what most tests want.
public struct ReplicaConfiguration: Sendable, Hashable {
    /// The address to bind; loopback unless ``allowsNonLoopbackHost`` is set.
    public var host: String
    /// The port to bind; 0 picks a free one (read it back from ``ReplicaServer/port``).
    public var port: Int
    /// Whether ``host`` may be something other than a loopback address.
    public var allowsNonLoopbackHost: Bool
    /// Event loop threads; 1 is enough for well over 30,000 requests a second.
    public var threads: Int
    /// The catalogue's seed, which also seeds the fault decisions.
    public var seed: UInt64
    /// The catalogue's size relative to the real one (1 ≈ 635 drinks).
    public var scale: Double
    /// The most items a list, filter or search response holds (the free key's cap is 100); 0 = no cap.
    public var resultCap: Int
    /// The fraction of drinks served in the older form, with `""` in unused ingredient slots.
    public var legacyRate: Double
    /// The faults to inject.
    public var faults: ReplicaFaults
    /// The most bytes of rendered documents kept in memory; beyond it documents are rendered per request.
    public var documentCacheLimit: Int
    /// Whether documents carry `ETag` and `Last-Modified` and conditional requests get `304 Not
    /// Modified`; off, the replica behaves like a server without validators (as the real API).
    public var validators: Bool
    /// Whether `strDrinkThumb` names the replica itself (`http://HOST:PORT/images/media/drink/<slug>.jpg`,
    /// the address of ``ReplicaServer/baseURL``) instead of the public host, so a client that
    /// downloads thumbnails stays on the replica. Off by default, which keeps every document's bytes
    /// as they were. The images are served either way.
    public var selfHostedImages: Bool
    /// What `/robots.txt` serves (`text/plain`); `nil` (the default): 404, as the real API.
    public var robotsTxt: String? = nil

    /// Creates a configuration; every argument has a test-friendly default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        allowsNonLoopbackHost: Bool = false,
        threads: Int = 1,
        seed: UInt64 = Catalogue.defaultSeed,
        scale: Double = 1,
        resultCap: Int = 100,
        legacyRate: Double = 0,
        faults: ReplicaFaults = ReplicaFaults(),
        documentCacheLimit: Int = 512 << 20,
        validators: Bool = true,
        selfHostedImages: Bool = false
    ) {
        self.host = host
        self.port = port
        self.allowsNonLoopbackHost = allowsNonLoopbackHost
        self.threads = threads
        self.seed = seed
        self.scale = scale
        self.resultCap = resultCap
        self.legacyRate = legacyRate
        self.faults = faults
        self.documentCacheLimit = documentCacheLimit
        self.validators = validators
        self.selfHostedImages = selfHostedImages
    }

    /// Checks every value's range, and that the host is loopback unless allowed otherwise.
    ///
    /// - Throws: ``ReplicaError`` naming the bad value.
    public func validate() throws {
        guard (0...65535).contains(self.port) else {
            throw ReplicaError.invalidConfiguration("port must be between 0 and 65535, got \(self.port)")
        }
        guard (1...64).contains(self.threads) else {
            throw ReplicaError.invalidConfiguration("threads must be between 1 and 64, got \(self.threads)")
        }
        guard self.scale.isFinite, (0.001...10_000).contains(self.scale) else {
            throw ReplicaError.invalidConfiguration("scale must be between 0.001 and 10000, got \(self.scale)")
        }
        guard self.legacyRate.isFinite, (0...1).contains(self.legacyRate) else {
            throw ReplicaError.invalidConfiguration("legacy rate must be between 0 and 1, got \(self.legacyRate)")
        }
        guard self.documentCacheLimit >= 0 else {
            throw ReplicaError.invalidConfiguration("the document cache limit must not be negative")
        }
        guard self.resultCap >= 0 else {
            throw ReplicaError.invalidConfiguration("result cap must not be negative (0 means no cap)")
        }
        guard self.allowsNonLoopbackHost || Self.isLoopback(self.host) else {
            throw ReplicaError(
                kind: .nonLoopbackHost,
                message: "refusing to bind \(self.host): not a loopback address; pass --host explicitly to allow it"
            )
        }
        try self.faults.validate()
    }

    /// Whether `host` names the loopback interface (127.0.0.0/8, ::1 or localhost).
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" {
            return true
        }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { octet in UInt8(octet).map { _ in true } ?? false }
    }
}
