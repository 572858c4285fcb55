import BatchFetch

/// Accumulates the measurements of a load run, one result at a time, in constant memory: counts
/// by status and error kind, bytes, connections, retries, an HDR histogram of latencies and one
/// per transfer phase. Bodies are only counted, never kept.
///
/// Threading: a value type; record from one task, or share it behind a lock.
public struct BenchRecorder: Sendable {
    /// Statuses that count as ok (2xx by default).
    public var okStatuses: ClosedRange<Int>

    /// Results recorded.
    public private(set) var requests = 0
    /// Results whose response has an ok status.
    public private(set) var ok = 0
    /// Responses by HTTP status, ok ones included.
    public private(set) var statuses: [Int: Int] = [:]
    /// Results without a response, by error kind.
    public private(set) var errors: [FetchError.Kind: Int] = [:]
    /// Body bytes received, decoded.
    public private(set) var bytes = 0
    /// Connections opened, by failed attempts too (the sum of ``FetchResult/newConnections``).
    public private(set) var connections = 0
    /// Responses by the HTTP version they came over (what ALPN or prior knowledge settled on).
    public private(set) var protocols: [HTTPVersion: Int] = [:]
    /// Retries made (attempts beyond the first, over all results).
    public private(set) var retries = 0
    /// The latency of every response (whatever its status), as given to ``record(_:latency:)``.
    public private(set) var latency = LatencyHistogram()
    /// Name resolution, over responses that opened a connection.
    public private(set) var nameLookup = LatencyHistogram()
    /// Until the TCP connection was up, over responses that opened a connection.
    public private(set) var connect = LatencyHistogram()
    /// Until the TLS handshake finished, over responses that made one.
    public private(set) var tlsHandshake = LatencyHistogram()
    /// Until the first response byte, over all responses.
    public private(set) var firstByte = LatencyHistogram()
    /// The whole final attempt, over all responses.
    public private(set) var total = LatencyHistogram()

    /// An empty recorder.
    public init(okStatuses: ClosedRange<Int> = 200...299) {
        self.okStatuses = okStatuses
    }

    /// Records one result.
    ///
    /// - Parameter latency: the latency to record for a response (the caller decides from when it
    ///   counts, see ``LoadPlan/Pacing``); `nil` records the final attempt's ``Timings/total``.
    ///   Results without a response are counted by error kind and add no latency: there is no
    ///   time at which they were answered.
    public mutating func record(_ result: FetchResult, latency: Duration? = nil) {
        self.requests += 1
        self.retries += Swift.max(0, result.attempts - 1)
        self.connections += result.newConnections
        switch result.outcome {
        case .failure(let error):
            self.errors[error.kind, default: 0] += 1
        case .success(let response):
            if self.okStatuses.contains(response.status) {
                self.ok += 1
            }
            self.statuses[response.status, default: 0] += 1
            self.bytes += response.bodyByteCount
            self.protocols[response.httpVersion, default: 0] += 1
            let timings = response.timings
            self.latency.record(latency ?? timings.total)
            if response.newConnections > 0 {
                self.nameLookup.record(timings.nameLookup)
                self.connect.record(timings.connect)
            }
            if timings.tlsHandshake > .zero {
                self.tlsHandshake.record(timings.tlsHandshake)
            }
            self.firstByte.record(timings.firstByte)
            self.total.record(timings.total)
        }
    }

    /// Adds everything `other` recorded.
    public mutating func add(_ other: BenchRecorder) {
        self.requests += other.requests
        self.ok += other.ok
        self.statuses.merge(other.statuses, uniquingKeysWith: +)
        self.errors.merge(other.errors, uniquingKeysWith: +)
        self.bytes += other.bytes
        self.connections += other.connections
        self.protocols.merge(other.protocols, uniquingKeysWith: +)
        self.retries += other.retries
        self.latency.add(other.latency)
        self.nameLookup.add(other.nameLookup)
        self.connect.add(other.connect)
        self.tlsHandshake.add(other.tlsHandshake)
        self.firstByte.add(other.firstByte)
        self.total.add(other.total)
    }

    /// Results that were not ok: an unacceptable status or no response at all.
    public var failed: Int { self.requests - self.ok }

    /// The report of a run that took `elapsed` from its first request to its last result.
    public func report(elapsed: Duration, pacing: LoadPlan.Pacing, concurrency: Int) -> BenchReport {
        let seconds = Self.seconds(elapsed)
        var report = BenchReport(
            requests: self.requests, ok: self.ok, failed: self.failed, durationSeconds: Self.rounded(seconds, 6))
        switch pacing {
        case .closedLoop:
            report.mode = "closed-loop"
        case .openLoop(let rate):
            report.mode = "open-loop"
            report.rate = rate
        case .staged:
            report.mode = "open-loop"
        }
        report.concurrency = concurrency
        report.requestsPerSecond = seconds > 0 ? Self.rounded(Double(self.requests) / seconds, 3) : 0
        report.bytes = self.bytes
        report.megabytesPerSecond = seconds > 0 ? Self.rounded(Double(self.bytes) / 1e6 / seconds, 3) : 0
        report.connections = self.connections
        report.retries = self.retries
        report.statuses = Dictionary(uniqueKeysWithValues: self.statuses.map { (String($0.key), $0.value) })
        report.errors = Dictionary(uniqueKeysWithValues: self.errors.map { ($0.key.rawValue, $0.value) })
        report.protocols = Dictionary(uniqueKeysWithValues: self.protocols.map { ($0.key.rawValue, $0.value) })
        report.latency = Self.figures(self.latency)
        report.phases = BenchReport.Phases(
            dns: self.median(self.nameLookup),
            connect: self.median(self.connect),
            tls: self.median(self.tlsHandshake),
            firstByte: self.median(self.firstByte),
            total: self.median(self.total),
            newConnectionSamples: self.connect.count
        )
        report.histogram = Self.bars(self.latency)
        report.histograms = BenchReport.Histograms(latency: self.latency.encoded, service: self.total.encoded)
        return report
    }

    /// The percentiles of `latency` as a report gives them; `nil` when it is empty.
    static func figures(_ latency: LatencyHistogram) -> BenchReport.Latency? {
        guard !latency.isEmpty else {
            return nil
        }
        return BenchReport.Latency(
            min: Self.milliseconds(latency.min),
            mean: Self.milliseconds(latency.mean),
            stdev: Self.milliseconds(latency.standardDeviation),
            p50: Self.milliseconds(latency.value(atPercentile: 50)),
            p90: Self.milliseconds(latency.value(atPercentile: 90)),
            p99: Self.milliseconds(latency.value(atPercentile: 99)),
            p99_9: Self.milliseconds(latency.value(atPercentile: 99.9)),
            max: Self.milliseconds(latency.max)
        )
    }

    /// The report's coarse distribution of `latency`.
    static func bars(_ latency: LatencyHistogram) -> [BenchReport.Bucket] {
        latency.buckets().map {
            BenchReport.Bucket(
                fromMilliseconds: Self.milliseconds($0.lowerBound), toMilliseconds: Self.milliseconds($0.upperBound),
                count: $0.count)
        }
    }

    private func median(_ histogram: LatencyHistogram) -> Double? {
        histogram.isEmpty ? nil : Self.milliseconds(histogram.value(atPercentile: 50))
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Milliseconds to the microsecond, so JSON shows `20.413`, not `20.413000000000004`.
    static func milliseconds(_ duration: Duration) -> Double {
        Self.rounded(Self.seconds(duration) * 1000, 3)
    }

    static func rounded(_ value: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places {
            scale *= 10
        }
        return (value * scale).rounded() / scale
    }
}
