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
    func writeStats(_ summary: some Encodable) {
        guard let path = self.stats else {
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        if let data = try? encoder.encode(summary),
            FileManager.default.createFile(atPath: path, contents: data + [0x0A])
        {
            return
        }
        FileHandleOutput.standardError.write("batchfetch: cannot write stats to \(path)\n")
    }
}

/// When to show progress.
enum ProgressMode: String, CaseIterable, ExpressibleByArgument {
    case auto, always, never
}
