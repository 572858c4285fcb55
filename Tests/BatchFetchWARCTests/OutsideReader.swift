import Foundation

/// scripts/warc-check, the outside readers (warcio, cdxj-indexer, surt) in a venv, run from the
/// tests: what they saw in a WARC file, decoded from the script's JSON.
enum OutsideReader {
    /// One file as warcio, Python's zlib and cdxj-indexer saw it (scripts/warc.d/check.py).
    struct Report: Decodable {
        struct Member: Decodable {
            let offset: Int64
            let length: Int64
            let data: String
        }

        struct Record: Decodable {
            let offset: Int64
            let length: Int64
            let type: String
            let id: String
            let headers: [[String]]
            let http_status: String?
            let http_headers: [[String]]?
            let raw_payload: String
            let payload: String?
        }

        struct Check: Decodable {
            let status: Int32
            let output: String
        }

        let members: [Member]
        let partial_tail: Int
        let records: [Record]
        let iterator_error: String?
        let check: Check
        let cdxj: [String]
    }

    /// Why the readers could not run: pip could not install them (the script said SKIPPED).
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The script failed: a test that needed it fails.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The readers' report on `path`, or `nil` (said on standard output) when pip could not install
    /// them; any other failure throws.
    static func report(_ path: String) throws -> Report? {
        do {
            return try self.check(path)
        } catch let skipped as Unavailable {
            print("BatchFetchWARCTests: outside readers skipped: \(skipped)")
            return nil
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The readers' report on `path`.
    static func check(_ path: String) throws -> Report {
        let output = try self.run(["check", path], input: nil)
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }

    /// The `surt` package's keys for `urls`.
    static func surt(_ urls: [String]) throws -> [String] {
        let output = try self.run(["surt"], input: urls.joined(separator: "\n") + "\n")
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    private static func run(_ arguments: [String], input: String?) throws -> String {
        let process = Process()
        process.executableURL = self.root.appendingPathComponent("scripts/warc-check")
        process.arguments = arguments
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        // A few hundred bytes at most, which a pipe takes without a reader.
        stdin.fileHandleForWriting.write(Data((input ?? "").utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus == 3, text.hasPrefix("warc-check: SKIPPED") {
            throw Unavailable(description: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "scripts/warc-check failed with status \(process.terminationStatus): \(text)")
        }
        return text
    }
}

extension Array where Element == UInt8 {
    init(base64: String) {
        self = Data(base64Encoded: base64).map { Array($0) } ?? []
    }
}
