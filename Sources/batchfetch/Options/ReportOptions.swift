import ArgumentParser
import Foundation

/// Flags `fetch` and `crawl` share for what they say besides their records.
struct ReportOptions: ParsableArguments {
    @Option(help: "Progress on standard error: auto (when it is a terminal), always or never.")
    var progress: ProgressMode = .auto

    @Option(help: "Write a JSON run summary to FILE.")
    var stats: String?

    @Flag(name: .shortAndLong, help: "No summary on standard error.")
    var quiet = false

    /// Whether to show progress: asked for, or standard error is a terminal.
    var showsProgress: Bool {
        self.progress == .always || (self.progress == .auto && isatty(2) != 0)
    }

    /// Writes `summary` to the `--stats` file, if one was asked for (sorted keys, so runs diff).
    /// - Returns: `false` when the file could not be written (said on standard error): the run
    ///   then exits non-zero.
    func writeStats(_ summary: some Encodable) -> Bool {
        guard let path = self.stats else {
            return true
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(summary) else {
            FileHandleOutput.standardError.write("batchfetch: cannot encode the stats for \(path)\n")
            return false
        }
        guard let file = FileHandleOutput(path: path) else {
            FileHandleOutput.standardError.write(
                "batchfetch: cannot write stats to \(path): \(String(cString: strerror(errno)))\n")
            return false
        }
        file.write(Array(data) + [0x0A])
        file.flush()
        if let failure = file.failure {
            FileHandleOutput.standardError.write(
                "batchfetch: cannot write stats to \(path): \(String(cString: strerror(failure)))\n")
            return false
        }
        return true
    }
}

/// When to show progress.
enum ProgressMode: String, CaseIterable, ExpressibleByArgument {
    case auto, always, never
}
