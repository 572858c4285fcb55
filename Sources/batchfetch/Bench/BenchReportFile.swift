import ArgumentParser
import BatchFetch
import BatchFetchBench
import Foundation

/// Reading and writing the reports `bench run --json` saves, for `bench compare` and `bench merge`.
enum BenchReportFile {
    /// The report in `path`.
    /// - Throws: ``ExitCode/usage`` when it cannot be read or is not a bench report (said on
    ///   standard error, naming the file).
    static func read(_ path: String) throws -> BenchReport {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandleOutput.standardError.write("batchfetch: cannot read \(path)\n")
            throw ExitCode.usage
        }
        do {
            return try JSONDecoder().decode(BenchReport.self, from: data)
        } catch {
            FileHandleOutput.standardError.write(
                "batchfetch: \(path) is not a report of 'batchfetch bench --json': \(Self.reason(error))\n")
            throw ExitCode.usage
        }
    }

    /// `report` as `bench --json` prints it: one line, sorted keys.
    static func encoded(_ report: BenchReport) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(report)) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }

    /// Writes `report` as ``encoded(_:)`` does, with the points in `spill` as its series (in
    /// place of `report.series`), copied from the file rather than held in memory.
    /// - Returns: `false` when the spilled points could not be written or read back.
    static func write(_ report: BenchReport, series spill: BenchSeriesSpill, to output: FileHandleOutput) -> Bool {
        var report = report
        report.series = []
        let bytes = Self.encoded(report)
        // Keys are sorted and quotes inside strings escaped, so this is the key's one occurrence.
        let marker = Array(#""series":["#.utf8)
        guard spill.failure == nil,
            let start = bytes.indices.dropLast(marker.count).first(where: {
                bytes[$0] == marker[0] && bytes[$0..<($0 + marker.count)].elementsEqual(marker)
            })
        else {
            output.write(bytes)
            return false
        }
        let split = start + marker.count
        output.write(Array(bytes[..<split]))
        let copied = spill.copy(to: output)
        output.write(Array(bytes[split...]))
        return copied
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _):
            return "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        case DecodingError.dataCorrupted(let context):
            return context.debugDescription
        default:
            return "\(error)"
        }
    }
}
