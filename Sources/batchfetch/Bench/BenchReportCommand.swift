import ArgumentParser
import BatchFetch
import Foundation

/// `batchfetch bench report RUN.json… --html FILE`: the runs as one page that opens anywhere.
struct BenchReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Draw bench --json reports as one self-contained HTML page (charts, summary table).",
        discussion: """
            One file with its scripts, styles and data inline, nothing fetched: latency over time \
            (p50-p99 band, p99.9 line), the percentile spectrum on HdrHistogram's log axis, \
            throughput and non-2xx/error rates over time, and a summary table; several runs are \
            overlaid, labelled by --label or their file name. Exit status: 0 written, 2 usage error \
            or unreadable report, 1 the page could not be written.
            """
    )

    @Argument(help: "The reports (bench --json output) to draw.")
    var runs: [String]

    @Option(help: "Write the page to FILE.")
    var html: String

    @Option(help: "The page's title.")
    var title = "batchfetch bench report"

    func run() throws {
        var places = FilePlaces()
        places.inputs = self.runs.map { .init(flag: "RUN", path: $0) }
        places.outputs.append(.init(flag: "--html", path: self.html))
        try places.check()
        let runs = try self.runs.map { path in
            let name = URL(fileURLWithPath: path).lastPathComponent
            return BenchPageData.Run(report: try BenchReportFile.read(path), name: name)
        }
        let page = BenchPage.html(title: self.title, data: BenchPageData(title: self.title, runs: runs))
        let file = try FileHandleOutput.opening(self.html)
        file.write(page)
        file.flush()
        if let failure = file.failure {
            FileHandleOutput.standardError.write(
                "batchfetch: cannot write \(self.html): \(String(cString: strerror(failure)))\n")
            throw ExitCode.someFailed
        }
    }
}

/// What the page's script draws, as compact JSON: per run its figures, spectrum and series rows.
struct BenchPageData: Encodable {
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

        init(report: BenchReport, name: String) {
            self.label = report.settings?.label ?? name
            self.mode = report.mode
            self.requests = report.requests
            self.ok = report.ok
            self.failed = report.failed
            self.seconds = report.durationSeconds
            self.rps = report.requestsPerSecond
            self.mbps = report.megabytesPerSecond
            self.latency = report.latency
            let histogram = report.histograms.flatMap { try? LatencyHistogram(encoded: $0.latency) }
            self.spectrum = (histogram?.spectrum() ?? []).map { step in
                let (seconds, attoseconds) = step.duration.components
                return [step.percentile, Double(seconds) * 1000 + Double(attoseconds) / 1e15]
            }
            self.series = (report.series ?? []).map { point in
                let latency = point.latency
                let notOk = point.intervalSeconds > 0 ? Double(point.done - point.ok) / point.intervalSeconds : 0
                return [
                    point.offsetSeconds, point.requestsPerSecond, point.megabytesPerSecond, latency?.p50 ?? -1,
                    latency?.p90 ?? -1, latency?.p99 ?? -1, latency?.p99_9 ?? -1, latency?.max ?? -1, notOk,
                    point.intervalSeconds,
                ]
            }
        }
    }

    var title: String
    var runs: [Run]
}
