import BatchFetch

/// One interval of a load run's time series: what was due, sent and answered in it, and its own
/// latency percentiles, both from the intended start and as service time, with the interval's
/// whole histograms (HdrHistogram's compressed encoding) so runs can be merged exactly.
///
/// Encodes to one JSON object with snake_case keys, absent figures as `null` (an interval without
/// a response has no percentiles), as `bench --series` writes it, one line per interval.
public struct SeriesPoint: Sendable, Hashable, Codable {
    /// Latency percentiles of one interval, in milliseconds.
    public struct Percentiles: Sendable, Hashable, Codable {
        public var p50: Double
        public var p90: Double
        public var p99: Double
        public var p99_9: Double
        public var max: Double

        /// The percentiles of `histogram`, `nil` when it is empty.
        public init?(_ histogram: LatencyHistogram) {
            guard !histogram.isEmpty else {
                return nil
            }
            self.p50 = BenchRecorder.milliseconds(histogram.value(atPercentile: 50))
            self.p90 = BenchRecorder.milliseconds(histogram.value(atPercentile: 90))
            self.p99 = BenchRecorder.milliseconds(histogram.value(atPercentile: 99))
            self.p99_9 = BenchRecorder.milliseconds(histogram.value(atPercentile: 99.9))
            self.max = BenchRecorder.milliseconds(histogram.max)
        }
    }

    /// The end of the interval, in seconds since the run's start.
    public var offsetSeconds: Double
    /// The interval's length in seconds (the last one of a run may be shorter).
    public var intervalSeconds: Double
    /// The end of the interval, in seconds since the Unix epoch (aligns runs made on several machines).
    public var time: Double
    /// Requests due in the interval (open loop: by the schedule; closed loop: as sent).
    public var intended: Int = 0
    /// Requests handed to the engine in the interval.
    public var sent: Int = 0
    /// Results (responses or errors) in the interval.
    public var done: Int = 0
    /// Sent and not yet done at the end of the interval (queued in the engine or on the wire).
    public var inFlight: Int = 0
    /// Responses with an ok status.
    public var ok: Int = 0
    /// Body bytes received (decoded).
    public var bytes: Int = 0
    /// Responses by status.
    public var statuses: [String: Int] = [:]
    /// Results without a response, by ``FetchError/Kind`` raw value.
    public var errors: [String: Int] = [:]
    /// ``done`` per second of the interval.
    public var requestsPerSecond: Double = 0
    /// Body megabytes (10⁶ bytes) per second of the interval.
    public var megabytesPerSecond: Double = 0
    /// Latency from each request's intended start (its due time in an open loop).
    public var latency: Percentiles?
    /// Service time: the final attempt's transfer, whatever the wait before it.
    public var service: Percentiles?
    /// The interval's latency histogram, ``LatencyHistogram/encoded``.
    public var latencyHistogram: String
    /// The interval's service-time histogram, ``LatencyHistogram/encoded``.
    public var serviceHistogram: String

    /// A point for the interval ending `offsetSeconds` after the start.
    public init(
        offsetSeconds: Double, intervalSeconds: Double, time: Double, latency: LatencyHistogram,
        service: LatencyHistogram
    ) {
        self.offsetSeconds = offsetSeconds
        self.intervalSeconds = intervalSeconds
        self.time = time
        self.latency = Percentiles(latency)
        self.service = Percentiles(service)
        self.latencyHistogram = latency.encoded
        self.serviceHistogram = service.encoded
    }

    /// Sets the rates from ``done``, ``bytes`` and ``intervalSeconds``.
    mutating func computeRates() {
        let seconds = self.intervalSeconds
        self.requestsPerSecond = seconds > 0 ? BenchRecorder.rounded(Double(self.done) / seconds, 3) : 0
        self.megabytesPerSecond = seconds > 0 ? BenchRecorder.rounded(Double(self.bytes) / 1e6 / seconds, 3) : 0
    }

    enum CodingKeys: String, CodingKey {
        case offsetSeconds = "t_s"
        case intervalSeconds = "interval_s"
        case time, intended, sent, done
        case inFlight = "in_flight"
        case ok, bytes, statuses, errors
        case requestsPerSecond = "requests_per_second"
        case megabytesPerSecond = "megabytes_per_second"
        case latency = "latency_ms"
        case service = "service_ms"
        case latencyHistogram = "latency_hdr"
        case serviceHistogram = "service_hdr"
    }

    /// Encodes every key, absent percentiles as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.offsetSeconds, forKey: .offsetSeconds)
        try container.encode(self.intervalSeconds, forKey: .intervalSeconds)
        try container.encode(self.time, forKey: .time)
        try container.encode(self.intended, forKey: .intended)
        try container.encode(self.sent, forKey: .sent)
        try container.encode(self.done, forKey: .done)
        try container.encode(self.inFlight, forKey: .inFlight)
        try container.encode(self.ok, forKey: .ok)
        try container.encode(self.bytes, forKey: .bytes)
        try container.encode(self.statuses, forKey: .statuses)
        try container.encode(self.errors, forKey: .errors)
        try container.encode(self.requestsPerSecond, forKey: .requestsPerSecond)
        try container.encode(self.megabytesPerSecond, forKey: .megabytesPerSecond)
        try container.encode(self.latency, forKey: .latency)
        try container.encode(self.service, forKey: .service)
        try container.encode(self.latencyHistogram, forKey: .latencyHistogram)
        try container.encode(self.serviceHistogram, forKey: .serviceHistogram)
    }
}
