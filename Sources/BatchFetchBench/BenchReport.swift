import BatchFetch

/// The figures of one load run, as `batchfetch bench` prints them: counts, throughput, latency
/// percentiles, phase medians and a coarse latency distribution. Durations are in milliseconds.
///
/// Encodes to JSON with snake_case keys (`requests_per_second`, `latency_ms.p99_9`, …); absent
/// figures (no response, so no latency) encode as `null`, so the set of keys never changes.
public struct BenchReport: Sendable, Hashable, Codable {
    /// Latency percentiles in milliseconds, from an HDR histogram at microsecond resolution.
    public struct Latency: Sendable, Hashable, Codable {
        /// The fastest response.
        public var min: Double
        /// The arithmetic mean (telling little about a skewed distribution; read the percentiles).
        public var mean: Double
        /// The standard deviation.
        public var stdev: Double
        /// The median.
        public var p50: Double
        /// 90 % of responses were this fast or faster.
        public var p90: Double
        /// 99 % of responses were this fast or faster.
        public var p99: Double
        /// 99.9 % of responses were this fast or faster.
        public var p99_9: Double
        /// The slowest response.
        public var max: Double

        /// Creates latency figures.
        public init(
            min: Double, mean: Double, stdev: Double, p50: Double, p90: Double, p99: Double, p99_9: Double,
            max: Double
        ) {
            self.min = min
            self.mean = mean
            self.stdev = stdev
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
            self.p99_9 = p99_9
            self.max = max
        }
    }

    /// Medians of libcurl's phase timings in milliseconds, cumulative from the start of the
    /// attempt (as `curl -w` reports them). `dns` and `connect` are over the responses that opened
    /// a connection (``newConnectionSamples`` of them; on a reused connection they are zero),
    /// `tls` over those that made a handshake, `firstByte` and `total` over all responses.
    public struct Phases: Sendable, Hashable, Codable {
        /// Name resolution.
        public var dns: Double?
        /// Until the TCP connection was up.
        public var connect: Double?
        /// Until the TLS handshake finished; `nil` when none was made (plain HTTP).
        public var tls: Double?
        /// Until the first response byte.
        public var firstByte: Double?
        /// The whole transfer.
        public var total: Double?
        /// How many responses opened a connection (the samples of `dns` and `connect`).
        public var newConnectionSamples: Int

        /// Creates phase medians.
        public init(
            dns: Double? = nil, connect: Double? = nil, tls: Double? = nil, firstByte: Double? = nil,
            total: Double? = nil, newConnectionSamples: Int = 0
        ) {
            self.dns = dns
            self.connect = connect
            self.tls = tls
            self.firstByte = firstByte
            self.total = total
            self.newConnectionSamples = newConnectionSamples
        }

        enum CodingKeys: String, CodingKey {
            case dns, connect, tls
            case firstByte = "first_byte"
            case total
            case newConnectionSamples = "new_connection_samples"
        }

        /// Encodes every key, absent medians as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.dns, forKey: .dns)
            try container.encode(self.connect, forKey: .connect)
            try container.encode(self.tls, forKey: .tls)
            try container.encode(self.firstByte, forKey: .firstByte)
            try container.encode(self.total, forKey: .total)
            try container.encode(self.newConnectionSamples, forKey: .newConnectionSamples)
        }
    }

    /// One bar of the latency distribution: latencies from `fromMilliseconds` up to (excluding)
    /// `toMilliseconds`.
    public struct Bucket: Sendable, Hashable, Codable {
        /// The smallest latency in the bucket.
        public var fromMilliseconds: Double
        /// The first latency past the bucket.
        public var toMilliseconds: Double
        /// How many responses fell in the bucket.
        public var count: Int

        /// Creates a bucket.
        public init(fromMilliseconds: Double, toMilliseconds: Double, count: Int) {
            self.fromMilliseconds = fromMilliseconds
            self.toMilliseconds = toMilliseconds
            self.count = count
        }

        enum CodingKeys: String, CodingKey {
            case fromMilliseconds = "from_ms"
            case toMilliseconds = "to_ms"
            case count
        }
    }

    /// `closed-loop` or `open-loop`.
    public var mode: String = "closed-loop"
    /// The in-flight cap.
    public var concurrency: Int = 0
    /// The open-loop rate in requests per second; `nil` in a closed loop.
    public var rate: Double?
    /// Requests completed (with a response or an error).
    public var requests: Int
    /// Responses with an ok status (2xx).
    public var ok: Int
    /// Requests that were not ok: another status, or no response.
    public var failed: Int
    /// From the first request to the last result, in seconds.
    public var durationSeconds: Double
    /// ``requests`` per second of ``durationSeconds``.
    public var requestsPerSecond: Double = 0
    /// Body bytes received (decoded).
    public var bytes: Int = 0
    /// Body megabytes (10⁶ bytes) per second.
    public var megabytesPerSecond: Double = 0
    /// Connections opened.
    public var connections: Int = 0
    /// Retries made.
    public var retries: Int = 0
    /// Responses by status (as strings, since they are JSON object keys), ok ones included.
    public var statuses: [String: Int] = [:]
    /// Requests without a response, by ``FetchError/Kind`` raw value.
    public var errors: [String: Int] = [:]
    /// Responses by the HTTP version they came over (``HTTPVersion`` raw value: `HTTP/1.1`,
    /// `HTTP/2`).
    public var protocols: [String: Int] = [:]
    /// Latency percentiles, `nil` when no response came back.
    public var latency: Latency?
    /// Phase medians.
    public var phases = Phases()
    /// The latency distribution in a dozen buckets or fewer.
    public var histogram: [Bucket] = []
    /// How the run was made, so a saved report can be read back and compared.
    public var settings: Settings?
    /// The whole-run histograms in HdrHistogram's compressed encoding.
    public var histograms: Histograms?
    /// The run's time series, one point per interval.
    public var series: [SeriesPoint]?

    /// Creates a report; the figures not given start at zero or empty.
    public init(requests: Int, ok: Int, failed: Int, durationSeconds: Double) {
        self.requests = requests
        self.ok = ok
        self.failed = failed
        self.durationSeconds = durationSeconds
    }

    enum CodingKeys: String, CodingKey {
        case mode, concurrency, rate, requests, ok, failed
        case durationSeconds = "duration_s"
        case requestsPerSecond = "requests_per_second"
        case bytes
        case megabytesPerSecond = "megabytes_per_second"
        case connections, retries, statuses, errors, protocols
        case latency = "latency_ms"
        case phases = "phases_ms"
        case histogram, settings, histograms, series
    }

    /// Encodes every key, absent figures as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.mode, forKey: .mode)
        try container.encode(self.concurrency, forKey: .concurrency)
        try container.encode(self.rate, forKey: .rate)
        try container.encode(self.requests, forKey: .requests)
        try container.encode(self.ok, forKey: .ok)
        try container.encode(self.failed, forKey: .failed)
        try container.encode(self.durationSeconds, forKey: .durationSeconds)
        try container.encode(self.requestsPerSecond, forKey: .requestsPerSecond)
        try container.encode(self.bytes, forKey: .bytes)
        try container.encode(self.megabytesPerSecond, forKey: .megabytesPerSecond)
        try container.encode(self.connections, forKey: .connections)
        try container.encode(self.retries, forKey: .retries)
        try container.encode(self.statuses, forKey: .statuses)
        try container.encode(self.errors, forKey: .errors)
        try container.encode(self.protocols, forKey: .protocols)
        try container.encode(self.latency, forKey: .latency)
        try container.encode(self.phases, forKey: .phases)
        try container.encode(self.histogram, forKey: .histogram)
        try container.encodeIfPresent(self.settings, forKey: .settings)
        try container.encodeIfPresent(self.histograms, forKey: .histograms)
        try container.encodeIfPresent(self.series, forKey: .series)
    }
}
