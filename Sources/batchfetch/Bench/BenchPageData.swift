import BatchFetch
import BatchFetchBench
import Foundation

/// What the page's script draws, as compact JSON: per run its figures, spectrum, series rows and
/// stage boundaries.
struct BenchPageData: Encodable {
    /// The most series rows drawn per run: about a row per pixel of a chart and a half. A longer
    /// series (an hour at one-second intervals is 3,600 rows) is drawn in groups of consecutive
    /// intervals; see ``Run/downsampled(_:to:)``.
    static let maximumRows = 1200

    struct Run: Encodable {
        var label: String
        var mode: String
        var requests: Int
        var ok: Int
        var failed: Int
        var seconds: Double
        var rps: Double
        var mbps: Double
        var latency: BenchReport.Latency?
        /// [percentile, milliseconds] pairs.
        var spectrum: [[Double]]
        /// [t_s, req/s, MB/s, p50, p90, p99, p99.9, max, not-ok per second, interval_s] rows; a
        /// missing percentile (no response in the interval) is -1.
        var series: [[Double]]
        /// How many intervals each row of ``series`` stands for (1 unless downsampled).
        var intervalsPerRow: Int
        /// Seconds from the start at which one `--stages` stage ends and the next begins.
        var stages: [Double]

        /// The page's view of `report`.
        /// - Throws: ``FetchError`` when its histogram cannot be read.
        init(report: BenchReport, name: String) throws(FetchError) {
            self.label = report.settings?.label ?? name
            self.mode = report.mode
            self.requests = report.requests
            self.ok = report.ok
            self.failed = report.failed
            self.seconds = report.durationSeconds
            self.rps = report.requestsPerSecond
            self.mbps = report.megabytesPerSecond
            self.latency = report.latency
            let histogram = try report.histograms.map { histograms throws(FetchError) in
                try LatencyHistogram(encoded: histograms.latency)
            }
            self.spectrum = (histogram?.spectrum() ?? []).map { step in
                let (seconds, attoseconds) = step.duration.components
                return [step.percentile, Double(seconds) * 1000 + Double(attoseconds) / 1e15]
            }
            let rows = (report.series ?? []).map { point in
                let latency = point.latency
                let notOk = point.intervalSeconds > 0 ? Double(point.done - point.ok) / point.intervalSeconds : 0
                return [
                    point.offsetSeconds, point.requestsPerSecond, point.megabytesPerSecond, latency?.p50 ?? -1,
                    latency?.p90 ?? -1, latency?.p99 ?? -1, latency?.p99_9 ?? -1, latency?.max ?? -1, notOk,
                    point.intervalSeconds,
                ]
            }
            (self.series, self.intervalsPerRow) = Self.downsampled(rows, to: BenchPageData.maximumRows)
            // A report's stages were checked when the run was made; one that no longer parses
            // (edited by hand) draws no boundaries rather than no page.
            let stages = report.settings?.stages.flatMap { try? LoadStage.parse($0) } ?? []
            var boundary = 0.0
            self.stages = stages.dropLast().map { stage in
                let (seconds, attoseconds) = stage.duration.components
                boundary += Double(seconds) + Double(attoseconds) / 1e18
                return boundary
            }
        }

        /// `rows` in at most `limit` rows, each standing for the same number of consecutive
        /// intervals (the last group may hold fewer): it ends where its last interval ends and lasts
        /// as long as its intervals together; its rates are theirs over that time, and each latency
        /// percentile is the largest of its intervals', so a spike in one interval stays visible.
        static func downsampled(_ rows: [[Double]], to limit: Int) -> (rows: [[Double]], intervalsPerRow: Int) {
            guard rows.count > limit, limit > 0 else {
                return (rows, 1)
            }
            let size = (rows.count + limit - 1) / limit
            let groups = stride(from: 0, to: rows.count, by: size).map { rows[$0..<Swift.min($0 + size, rows.count)] }
            let grouped = groups.map { group -> [Double] in
                let seconds = group.reduce(0) { $0 + $1[9] }
                let rate = { (column: Int) -> Double in
                    seconds > 0 ? group.reduce(0) { $0 + $1[column] * $1[9] } / seconds : 0
                }
                let largest = { (column: Int) -> Double in group.reduce(-1) { Swift.max($0, $1[column]) } }
                let last = group[group.index(before: group.endIndex)]
                return [
                    last[0], rate(1), rate(2), largest(3), largest(4), largest(5), largest(6), largest(7), rate(8),
                    seconds,
                ]
            }
            return (grouped, size)
        }
    }

    var title: String
    var runs: [Run]
}
