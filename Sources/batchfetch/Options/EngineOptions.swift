import ArgumentParser
import BatchFetch

/// Flags every fetching command shares: how many in flight, how fast, how patient.
struct EngineOptions: ParsableArguments {
    @Option(
        name: [.customShort("c"), .long], parsing: .unconditional,
        help: "Transfers in flight at once (default 64; crawl: 4 against TheCocktailDB's public API).")
    var concurrency: Int?

    @Option(
        name: .long, parsing: .unconditional, help: "Connections per host (default: no limit beyond --concurrency).")
    var perHost: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Request starts per second, retries included (default: unlimited; "
                + "crawl: 5 against TheCocktailDB's public API)."))
    var rate: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Starts --rate lets through at once after a pause (default: a quarter second of the rate, at least 1).",
            valueName: "N"))
    var burst: Int?

    @Option(
        help: ArgumentHelp(
            "Request starts per second per host, retries included: HOST=N/s rules, * for other hosts "
                + "(e.g. 'api.a.com=10/s,*=2/s'; HOST or HOST:PORT).",
            valueName: "RULES"))
    var hostRate: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Requests in flight per host, HTTP/2 streams included (--per-host counts connections).",
            valueName: "N"))
    var hostConcurrency: Int?

    @Flag(
        help: ArgumentHelp(
            "Adapt each host's start rate to how it answers: doubled while answers are good until it "
                + "throttles, then cut to 70% on a 429, 503 or timeout and raised step by step; never "
                + "above its --host-rate rule (starts at 10/s without one)."))
    var adaptive = false

    @Option(
        parsing: .unconditional,
        help: "Retries per request for transient failures (connect errors, timeouts, 408/425/429/5xx).")
    var retries: Int = 3

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds before the first retry of a failure without Retry-After, doubled for each further "
                + "one (up to a quarter more, at random; at most 60 s), as curl's --retry waits 1, 2, 4 s. "
                + "A 429 or 503 without Retry-After pauses its host as long.",
            valueName: "SECONDS"))
    var retryDelay: Double = 1

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds an attempt may receive nothing (waiting for the answer, or mid-body) before it fails; "
                + "a slow download goes on while bytes come (curl's --speed-limit 1 --speed-time; whole seconds).",
            valueName: "SECONDS"))
    var timeout: Double = 30

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds one attempt may take in all, connect included (curl's --max-time; default: no limit).",
            valueName: "SECONDS"))
    var maxTime: Double?

    @Option(parsing: .unconditional, help: "Connect timeout in seconds.")
    var connectTimeout: Double = 10

    func validate() throws {
        if let concurrency = self.concurrency, !(1...10_000).contains(concurrency) {
            throw ValidationError("--concurrency \(concurrency) is out of range: give 1 to 10000")
        }
        if let perHost = self.perHost, perHost < 1 {
            throw ValidationError("--per-host \(perHost) is out of range: give at least 1")
        }
        if let rate = self.rate, !(rate > 0 && rate.isFinite) {
            throw ValidationError(
                "--rate \(rate.formatted) is out of range: give a positive number of requests per second")
        }
        if let burst = self.burst, burst < 1 {
            throw ValidationError("--burst \(burst) is out of range: give at least 1 start")
        }
        if let hostConcurrency = self.hostConcurrency, hostConcurrency < 1 {
            throw ValidationError("--host-concurrency \(hostConcurrency) is out of range: give at least 1")
        }
        if let rules = self.hostRate {
            do throws(FetchError) {
                _ = try Engine.HostLimits(parsingRates: rules)
            } catch {
                throw ValidationError(error.message)
            }
        }
        guard self.retries >= 0 && self.retries <= 100 else {
            throw ValidationError("--retries \(self.retries) is out of range: give 0 to 100")
        }
        guard self.retryDelay.isFinite && self.retryDelay >= 0 && self.retryDelay <= 60 else {
            throw ValidationError("--retry-delay \(self.retryDelay) is out of range: give 0 to 60 seconds")
        }
        let timeouts = [
            ("--timeout", self.timeout), ("--connect-timeout", self.connectTimeout), ("--max-time", self.maxTime ?? 1),
        ]
        for (flag, seconds) in timeouts where !(seconds > 0 && seconds.isFinite) {
            throw ValidationError("\(flag) \(seconds.formatted) is out of range: give a positive number of seconds")
        }
    }

    /// The engine configuration these flags ask for.
    /// - Parameters:
    ///   - polite: use the profile for a public server (few connections, modest rate) where a flag
    ///     was not given.
    ///   - shares: the number of shards (`--shard K/N`) that split the job, each taking its share
    ///     of the rates, which are the whole job's.
    func configuration(polite: Bool = false, shares: Int = 1) -> Engine.Configuration {
        var configuration = Engine.Configuration()
        configuration.maxInFlight = self.concurrency ?? (polite ? 4 : 64)
        configuration.maxConnectionsPerHost = self.perHost ?? 0
        if let total = self.rate ?? (polite ? 5 : nil) {
            configuration.rateLimit = Engine.RateLimit.share(ofTotal: total, burst: self.burst, shares: shares)
        }
        if self.hostRate != nil || self.hostConcurrency != nil || self.adaptive {
            var limits = Engine.HostLimits()
            // validate() checked that the rules parse.
            if let rules = self.hostRate, let parsed = try? Engine.HostLimits(parsingRates: rules, shares: shares) {
                limits = parsed
            }
            limits.maxInFlight = self.hostConcurrency
            limits.adaptive = self.adaptive
            configuration.hostLimits = limits
        }
        configuration.retry.maxRetries = self.retries
        configuration.retry.baseDelay = Self.duration(self.retryDelay)
        configuration.idleTimeout = Self.duration(self.timeout)
        configuration.timeout = self.maxTime.map(Self.duration)
        configuration.connectTimeout = Self.duration(self.connectTimeout)
        return configuration
    }
}

extension EngineOptions {
    /// Seconds as a duration, a year at most: `validate()` lets any positive finite number through,
    /// and a larger one would not fit the conversion.
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64(min(seconds, 365 * 86_400) * 1000))
    }

    /// The per-host lines of the summary on standard error: one per host, busiest first.
    static func summary(_ hosts: [String: HostCounts]) -> String {
        var text = ""
        let busiest = hosts.sorted { ($0.value.requests, $1.key) > ($1.value.requests, $0.key) }
        for (host, counts) in busiest.prefix(20) {
            text += "  host \(host): \(counts.requests) requests, \(counts.throttled) 429s, \(counts.pauses) pauses, "
            text += "peak \(counts.peakPerSecond)/s"
            if let rate = counts.rate {
                text += ", adapted to \(Int(rate.rounded()))/s"
            }
            text += "\n"
        }
        if busiest.count > 20 {
            text += "  … and \(busiest.count - 20) more hosts (--stats has every one)\n"
        }
        return text
    }
}

extension Double {
    /// The number as a person wrote it: `-1`, not `-1.0`.
    var formatted: String {
        self == self.rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

/// `fetch`'s `--no-dedup`: whether identical lines share one transfer.
struct DeduplicationOptions: ParsableArguments {
    @Flag(
        name: .customLong("no-dedup"),
        help: """
            Send every line. By default identical requests (method, URL, headers, body) in one run are \
            sent once; the others get that transfer's response, with shared_with naming its record.
            """)
    var noDedup = false

    func apply(to configuration: inout Engine.Configuration) {
        configuration.deduplicate = !self.noDedup
    }
}
