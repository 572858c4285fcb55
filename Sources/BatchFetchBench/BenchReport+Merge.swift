import BatchFetch

extension BenchReport {
    /// The runs of one load test made at the same time on several machines, as one report:
    /// counts added, histograms added (so every percentile is exact, as if one histogram had
    /// held every sample), the series' points aligned to the nearest interval boundary from the
    /// earliest start and added, rates over the span from the earliest start to the latest end.
    ///
    /// Phase medians other than `total` (the service-time histogram's median) cannot be added
    /// and are `null` in the result.
    ///
    /// - Throws: ``FetchError`` of kind ``FetchError/Kind/invalidConfiguration`` when a report
    ///   lacks its histograms or settings (written before `--json` kept them), the runs differ in
    ///   mode or interval, or a histogram cannot be read.
    public static func merged(_ reports: [BenchReport]) throws(FetchError) -> BenchReport {
        guard let first = reports.first, let firstSettings = first.settings else {
            throw Self.mergeError("the first report has no settings: write reports with this batchfetch's --json")
        }
        var latency = LatencyHistogram()
        var service = LatencyHistogram()
        var start = Double.infinity
        var end = -Double.infinity
        for (number, report) in reports.enumerated() {
            guard let histograms = report.histograms, let settings = report.settings else {
                throw Self.mergeError("report \(number + 1) has no histograms: write it with this batchfetch's --json")
            }
            guard report.mode == first.mode, settings.intervalSeconds == firstSettings.intervalSeconds else {
                throw Self.mergeError("report \(number + 1) differs from the first in mode or --interval")
            }
            latency.add(try Self.histogram(histograms.latency, of: number))
            service.add(try Self.histogram(histograms.service, of: number))
            start = Swift.min(start, settings.startTime)
            end = Swift.max(end, settings.startTime + report.durationSeconds)
        }
        let seconds = Swift.max(0, end - start)
        var merged = BenchReport(
            requests: reports.reduce(0) { $0 + $1.requests }, ok: reports.reduce(0) { $0 + $1.ok },
            failed: reports.reduce(0) { $0 + $1.failed }, durationSeconds: BenchRecorder.rounded(seconds, 6))
        merged.mode = first.mode
        merged.concurrency = reports.reduce(0) { $0 + $1.concurrency }
        let rates = reports.compactMap(\.rate)
        merged.rate = rates.count == reports.count ? rates.reduce(0, +) : nil
        merged.bytes = reports.reduce(0) { $0 + $1.bytes }
        merged.requestsPerSecond = seconds > 0 ? BenchRecorder.rounded(Double(merged.requests) / seconds, 3) : 0
        merged.megabytesPerSecond = seconds > 0 ? BenchRecorder.rounded(Double(merged.bytes) / 1e6 / seconds, 3) : 0
        merged.connections = reports.reduce(0) { $0 + $1.connections }
        merged.retries = reports.reduce(0) { $0 + $1.retries }
        for report in reports {
            merged.statuses.merge(report.statuses, uniquingKeysWith: +)
            merged.errors.merge(report.errors, uniquingKeysWith: +)
            merged.protocols.merge(report.protocols, uniquingKeysWith: +)
        }
        merged.latency = BenchRecorder.figures(latency)
        merged.phases = Phases(
            total: service.isEmpty ? nil : BenchRecorder.milliseconds(service.value(atPercentile: 50)),
            newConnectionSamples: reports.reduce(0) { $0 + $1.phases.newConnectionSamples })
        merged.histogram = BenchRecorder.bars(latency)
        merged.histograms = Histograms(latency: latency.encoded, service: service.encoded)
        var settings = firstSettings
        settings.startTime = BenchRecorder.rounded(start, 6)
        settings.runs = reports.reduce(0) { $0 + ($1.settings?.runs ?? 1) }
        settings.distinctRequests = reports.reduce(0) { Swift.max($0, $1.settings?.distinctRequests ?? 0) }
        let labels = reports.compactMap { $0.settings?.label }
        settings.label = labels.isEmpty ? nil : labels.joined(separator: "+")
        merged.settings = settings
        merged.series = try Self.mergedSeries(reports, start: start, interval: firstSettings.intervalSeconds)
        return merged
    }

    /// The reports' series, points aligned to the nearest interval boundary from `start` and added.
    /// One interval's histograms at a time (each is ~190 KB in memory), so merging hour-long runs
    /// takes the points' size, not thousands of histograms.
    private static func mergedSeries(_ reports: [BenchReport], start: Double, interval: Double) throws(FetchError)
        -> [SeriesPoint]
    {
        guard interval > 0 else {
            return []
        }
        var keyed: [(key: Int, report: Int, point: SeriesPoint)] = []
        for (number, report) in reports.enumerated() {
            for point in report.series ?? [] {
                keyed.append((Swift.max(1, Int(((point.time - start) / interval).rounded())), number, point))
            }
        }
        keyed.sort { $0.key < $1.key }
        var latency = LatencyHistogram()
        var service = LatencyHistogram()
        var merged: [SeriesPoint] = []
        var first = 0
        while first < keyed.count {
            let key = keyed[first].key
            var end = first
            while end < keyed.count && keyed[end].key == key {
                end += 1
            }
            latency.reset()
            service.reset()
            for part in keyed[first..<end] {
                latency.add(try Self.histogram(part.point.latencyHistogram, of: part.report))
                service.add(try Self.histogram(part.point.serviceHistogram, of: part.report))
            }
            let offset = Double(key) * interval
            var point = SeriesPoint(
                offsetSeconds: BenchRecorder.rounded(offset, 6), intervalSeconds: interval,
                time: BenchRecorder.rounded(start + offset, 6), latency: latency, service: service)
            for part in keyed[first..<end].map(\.point) {
                point.intended += part.intended
                point.sent += part.sent
                point.done += part.done
                point.inFlight += part.inFlight
                point.ok += part.ok
                point.bytes += part.bytes
                point.statuses.merge(part.statuses, uniquingKeysWith: +)
                point.errors.merge(part.errors, uniquingKeysWith: +)
            }
            point.computeRates()
            merged.append(point)
            first = end
        }
        return merged
    }

    /// The histogram `text` of report `number` (counted from 0), or an error naming the report.
    private static func histogram(_ text: String, of number: Int) throws(FetchError) -> LatencyHistogram {
        do {
            return try LatencyHistogram(encoded: text)
        } catch {
            throw Self.mergeError("report \(number + 1): \(error.message)")
        }
    }

    private static func mergeError(_ message: String) -> FetchError {
        FetchError(kind: .invalidConfiguration, message: "cannot merge: \(message)")
    }
}
