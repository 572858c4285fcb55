import ArgumentParser
import BatchFetch

/// Flags every fetching command shares: how many in flight, how fast, how patient.
struct EngineOptions: ParsableArguments {
    @Option(
        name: [.customShort("c"), .long], help: "Transfers in flight at once (default 64; 4 against the public API).")
    var concurrency: Int?

    @Option(name: .long, help: "Connections per host (default: no limit beyond --concurrency).")
    var perHost: Int?

    @Option(help: "Request starts per second, retries included (default: unlimited; 5 against the public API).")
    var rate: Double?

    @Option(help: "Retries per request for transient failures (connect errors, timeouts, 408/425/429/5xx).")
    var retries: Int = 3

    @Option(help: "Per-attempt timeout in seconds.")
    var timeout: Double = 30

    @Option(help: "Connect timeout in seconds.")
    var connectTimeout: Double = 10

    func validate() throws {
        if let concurrency = self.concurrency, !(1...10_000).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 10000")
        }
        if let perHost = self.perHost, perHost < 1 {
            throw ValidationError("--per-host must be at least 1")
        }
        if let rate = self.rate, !(rate > 0 && rate.isFinite) {
            throw ValidationError("--rate must be a positive number of requests per second")
        }
        guard self.retries >= 0 && self.retries <= 100 else {
            throw ValidationError("--retries must be between 0 and 100")
        }
        guard self.timeout > 0 && self.timeout.isFinite, self.connectTimeout > 0 && self.connectTimeout.isFinite else {
            throw ValidationError("--timeout and --connect-timeout must be positive numbers of seconds")
        }
    }

    /// The engine configuration these flags ask for.
    /// - Parameter polite: use the profile for a public server (few connections, modest rate)
    ///   where a flag was not given.
    func configuration(polite: Bool = false) -> Engine.Configuration {
        var configuration = Engine.Configuration()
        configuration.maxInFlight = self.concurrency ?? (polite ? 4 : 64)
        configuration.maxConnectionsPerHost = self.perHost ?? 0
        if let rate = self.rate ?? (polite ? 5 : nil) {
            configuration.rateLimit = Engine.RateLimit(requestsPerSecond: rate, burst: max(1, Int(rate.rounded(.down))))
        }
        configuration.retry.maxRetries = self.retries
        configuration.timeout = .milliseconds(Int64(self.timeout * 1000))
        configuration.connectTimeout = .milliseconds(Int64(self.connectTimeout * 1000))
        return configuration
    }
}
