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

    /// `--resume` after a SIGKILL: the file the killed run left open is finished (its cut record
    /// dropped, renamed, indexed), the rest goes to the series' next file, and every record of
    /// the finished output points at its response in one of the two, both of which the outside
    /// readers accept.
    @Test func aResumedRunFinishesTheOpenFileAndWritesOnInTheNext() async throws {
        let directory = try ScratchDirectory("warc-resume")
        try await TestHTTPServer.with { server in
            let warc = directory.path("run.warc.gz")
            let output = directory.path("out.ndjson")
            let arguments =
                ["--warc", warc, "--warc-cdx", "--fields", "warc", "-o", output, "-c", "8"]
                + (0..<3000).map { "\(server.baseURL)/ok?size=20000&i=\($0)" }
            let process = try Self.start(arguments, errors: directory.path("stderr.txt"))
            let busy = await eventually(30) { Self.lines(output).count >= 200 }
            #expect(busy)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(FileManager.default.fileExists(atPath: warc + ".open"))

            let resumed = try Executable.batchfetch().run(
                ["fetch", "--progress", "never", "--resume"] + arguments, deadline: 120)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("finished \(warc), left open by an earlier run"), "\(resumed.stderr)")
            let next = directory.path("run-00001.warc.gz")
            #expect(!FileManager.default.fileExists(atPath: warc + ".open"))
            var responses: [String: [Int64: String]] = [:]
            for (path, name) in [(warc, "run.warc.gz"), (next, "run-00001.warc.gz")] {
                guard let report = try OutsideReader.report(path) else {
                    return
                }
                #expect(report.check.status == 0, "warcio check \(name): \(report.check.output)")
                #expect(report.partial_tail == 0)
                responses[name] = Dictionary(
                    report.records.filter { $0.type == "response" }.map { ($0.offset, $0.id) },
                    uniquingKeysWith: { a, _ in a })
                // The index of the finished file too is the one cdxj-indexer makes.
                let index = try String(contentsOfFile: WARCIndexPath.of(path), encoding: .utf8)
                #expect(index.split(separator: "\n").map(String.init) == report.cdxj.filter { !$0.isEmpty }.sorted())
            }
            let records = Self.lines(output).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(records.count == 3000)
            #expect(Set(records.compactMap { $0["index"] as? Int }) == Set(0..<3000))
            var inEach: [String: Int] = [:]
            for record in records {
                let warcField = record["warc"] as? [String: Any]
                let file = warcField?["file"] as? String ?? "?"
                let offset = Int64(warcField?["offset"] as? Int ?? -1)
                inEach[file, default: 0] += 1
                #expect(
                    responses[file]?[offset] == warcField?["record_id"] as? String, "record \(record["index"] ?? "?")")
            }
            #expect((inEach["run.warc.gz"] ?? 0) >= 200 && (inEach["run-00001.warc.gz"] ?? 0) > 0, "\(inEach)")
        }
    }
}

/// Where `--warc-cdx` puts a WARC file's index.
private enum WARCIndexPath {
    static func of(_ path: String) -> String {
        String(path.dropLast(".warc.gz".count)) + ".cdxj"
    }
}
