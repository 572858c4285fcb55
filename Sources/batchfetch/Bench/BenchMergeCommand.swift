import ArgumentParser
import BatchFetch
import BatchFetchBench
import Foundation

/// `batchfetch bench merge RUN.json… -o ALL.json`: one report of a load made by several machines.
struct BenchMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge bench --json reports of runs made at the same time (several machines) into one.",
        discussion: """
            Counts and HDR histograms are added, so the merged percentiles are exact: those of one \
            histogram holding every sample. Series points are aligned to the nearest --interval \
            boundary from the earliest start, and added. Rates are over the span from the earliest \
            start to the latest end. Phase medians other than total cannot be added and are null. \
            Exit status: 0 merged, 2 usage error or a report that cannot be merged (said why).
            """
    )

    @Argument(help: "The reports (bench --json output) to merge.")
    var runs: [String]

    @Option(name: .shortAndLong, help: "Write the merged report to FILE (default standard output).")
    var output: String?

    func run() throws {
        var places = FilePlaces()
        places.inputs = self.runs.map { .init(flag: "RUN", path: $0) }
        if let output = self.output {
            places.outputs.append(.init(flag: "-o", path: output))
        }
        try places.check()
        let reports = try self.runs.map { try BenchReportFile.read($0) }
        let merged: BenchReport
        do throws(FetchError) {
            merged = try BenchReport.merged(reports)
        } catch {
            FileHandleOutput.standardError.write("batchfetch: \(error.message)\n")
            throw ExitCode.usage
        }
        let file = try FileHandleOutput.opening(self.output)
        file.write(BenchReportFile.encoded(merged))
        file.flush()
        if let failure = file.failure {
            FileHandleOutput.standardError.write(
                "batchfetch: cannot write \(self.output ?? "standard output"): \(String(cString: strerror(failure)))\n")
            throw ExitCode.someFailed
        }
    }
}
