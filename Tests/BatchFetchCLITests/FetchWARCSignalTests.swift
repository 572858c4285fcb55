import Foundation
import TestSupport
import Testing

/// `fetch --warc` stopped from outside (issue 53): Ctrl-C closes the file whole under its name;
/// after a SIGKILL every record the JSON output names is readable in the `.open` file.
@Suite(.serialized)
struct FetchWARCSignalTests {
    private static func start(_ arguments: [String], errors: String) throws -> Process {
        let process = Process()
        process.executableURL = try Executable.batchfetch().url
        process.arguments = ["fetch", "--progress", "never"] + arguments
        #expect(FileManager.default.createFile(atPath: errors, contents: nil))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        return process
    }

    private static func lines(_ path: String) -> [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func ctrlCClosesTheArchiveWholeUnderItsName() async throws {
        let directory = try ScratchDirectory("warc-signal")
        try await TestHTTPServer.with { server in
            let warc = directory.path("run.warc.gz")
            let output = directory.path("out.ndjson")
            let process = try Self.start(
                ["--warc", warc, "-o", output, "\(server.baseURL)/ok?first"]
                    + (0..<3).map { "\(server.baseURL)/delay?ms=20000&i=\($0)" },
                errors: directory.path("stderr.txt"))
            let started = await eventually(10) {
                Self.lines(output).count == 1 && server.snapshot.arrivals["/delay"]?.count == 3
            }
            #expect(started)
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 130)
            #expect(!FileManager.default.fileExists(atPath: warc + ".open"))
            guard let report = try OutsideReader.report(warc) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            #expect(report.records.map(\.type) == ["warcinfo", "response", "request"])
        }
    }

    @Test func afterASIGKILLEveryRecordTheOutputNamesIsInTheOpenFile() async throws {
        let directory = try ScratchDirectory("warc-kill")
        try await TestHTTPServer.with { server in
            let warc = directory.path("run.warc.gz")
            let output = directory.path("out.ndjson")
            let process = try Self.start(
                ["--warc", warc, "--fields", "warc", "-o", output, "-c", "8"]
                    + (0..<3000).map { "\(server.baseURL)/ok?size=20000&i=\($0)" },
                errors: directory.path("stderr.txt"))
            let busy = await eventually(30) { Self.lines(output).count >= 200 }
            #expect(busy)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let open = warc + ".open"
            #expect(FileManager.default.fileExists(atPath: open), "a killed run leaves the file under its open name")
            // Whole lines only: the last one may have been cut by the kill.
            let records = Self.lines(output).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.count >= 200 && records.count < 3000)
            guard let report = try OutsideReader.report(open) else {
                return
            }
            let responses = Dictionary(
                report.records.filter { $0.type == "response" }.map { ($0.offset, $0.id) },
                uniquingKeysWith: { a, _ in a })
            for record in records {
                let warcField = record["warc"] as? [String: Any]
                let offset = Int64(warcField?["offset"] as? Int ?? -1)
                #expect(responses[offset] == warcField?["record_id"] as? String, "record \(record["index"] ?? "?")")
            }
            // Cut back to the whole gzip members, the file passes warcio check.
            let whole = report.members.last.map { $0.offset + $0.length } ?? 0
            let data = try Data(contentsOf: URL(fileURLWithPath: open)).prefix(Int(whole))
            let kept = directory.path("kept.warc.gz")
            try data.write(to: URL(fileURLWithPath: kept))
            let checked = try #require(try OutsideReader.report(kept))
            #expect(checked.check.status == 0, "warcio check: \(checked.check.output)")
            #expect(checked.partial_tail == 0)
        }
    }
}
