import ArgumentParser
import BatchFetch
import BatchFetchBench

/// `batchfetch bench compare BASE.json NEW.json`: what changed between two runs, and a gate for CI.
struct BenchCompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two bench --json reports: a table of changes; exit 1 when a --fail-if threshold is crossed.",
        discussion: """
            Metrics: rps, mbps, p50, p90, p99, p99.9, max, mean (ms), requests, failed, errors% (failed \
            per request). A threshold is METRIC>LIMIT or METRIC<LIMIT; a LIMIT ending in % is a change \
            from BASE (p99>+5%: p99 rose more than 5 %; rps<-3%: throughput fell more than 3 %), \
            otherwise a value NEW must not pass (failed>0, p99>250). Exit status: 0 within every \
            threshold, 1 some crossed (each named on standard error), 2 usage error or unreadable report.
            """
    )

    @Argument(help: "The report to compare against (bench --json output).")
    var base: String

    @Argument(help: "The new report.")
    var new: String

    @Option(name: .customLong("fail-if"), help: "Thresholds, comma-separated: 'p99>+5%,rps<-3%,failed>0'.")
    var failIf: String?

    func validate() throws {
        if let failIf = self.failIf {
            do throws(FetchError) {
                _ = try BenchComparison.thresholds(failIf)
            } catch {
                throw ValidationError(error.message)
            }
        }
    }

    func run() throws {
        let thresholds = (try? BenchComparison.thresholds(self.failIf ?? "")) ?? []
        let comparison = BenchComparison(
            base: try BenchReportFile.read(self.base), new: try BenchReportFile.read(self.new))
        FileHandleOutput.standardOutput.write(comparison.text)
        let crossed = thresholds.filter { $0.isCrossed(by: comparison.row($0.metric)) }
        for threshold in crossed {
            let row = comparison.row(threshold.metric)
            let change = row.changePercent.map { String(format: "%+.1f%%", $0) } ?? "no ratio"
            FileHandleOutput.standardError.write(
                "batchfetch: threshold crossed: \(threshold.text) (\(threshold.metric.name) "
                    + "\(row.base.map { "\($0)" } ?? "-") -> \(row.new.map { "\($0)" } ?? "-"), \(change))\n")
        }
        if !crossed.isEmpty {
            throw ExitCode.someFailed
        }
    }
}
