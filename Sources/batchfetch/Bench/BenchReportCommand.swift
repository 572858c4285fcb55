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
            let report = try BenchReportFile.read(path)
            do throws(FetchError) {
                return try BenchPageData.Run(report: report, name: name)
            } catch {
                FileHandleOutput.standardError.write("batchfetch: \(path): \(error.message)\n")
                throw ExitCode.usage
            }
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
