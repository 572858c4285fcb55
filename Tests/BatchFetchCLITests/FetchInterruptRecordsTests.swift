import Foundation
import TestSupport
import Testing

/// Issue 51: a signal loses no answered record. One slow request first, six POSTs after it that
/// the server answers at once; the signal comes while the slow one is in flight. Every answered
/// POST has its ok record, whatever the order; the slow one an `interrupted` record in its place.
@Suite(.serialized)
struct FetchInterruptRecordsTests {
    @Test(arguments: ["input", "completion"], [SIGINT, SIGTERM])
    func answeredRequestsBehindASlowOneAreWrittenWhenASignalStopsTheRun(order: String, signal: Int32) async throws {
        try await Self.check(order: order, signal: signal, standardInput: false)
    }

    /// The same with the requests on a pipe that stays open (the streamed input's iterator).
    @Test(arguments: ["input", "completion"])
    func answeredRequestsReadFromAnOpenPipeAreWrittenWhenASignalStopsTheRun(order: String) async throws {
        try await Self.check(order: order, signal: SIGINT, standardInput: true)
    }

    static func check(order: String, signal: Int32, standardInput: Bool) async throws {
        let directory = try ScratchDirectory("fetch-interrupt-records")
        try await TestHTTPServer.with { server in
            let input = directory.path("requests.ndjson")
            let output = directory.path("out.ndjson")
            let stats = directory.path("stats.json")
            let errors = directory.path("stderr.txt")
            let lines =
                [#"{"url":"\#(server.baseURL)/delay?ms=20000"}"#]
                + (1...6).map { #"{"url":"\#(server.baseURL)/ok?post=\#($0)","method":"POST","body":{"n":\#($0)}}"# }
            let text = lines.joined(separator: "\n") + "\n"
            try text.write(toFile: input, atomically: true, encoding: .utf8)
            #expect(FileManager.default.createFile(atPath: errors, contents: nil))
            let process = Process()
            process.executableURL = try Executable.batchfetch().url
            process.arguments =
                ["fetch", "--progress", "never", "--order", order, "-o", output, "--stats", stats]
                + (standardInput ? [] : ["-i", input])
            let pipe = Pipe()
            if standardInput {
                process.standardInput = pipe
            }
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            if standardInput {
                // Left open: the run is still reading when the signal comes.
                pipe.fileHandleForWriting.write(Data(text.utf8))
            }
            let posts = { server.arrivals.filter { $0.head.hasPrefix("POST ") }.count }
            let started = await eventually(10) {
                posts() == 6 && server.snapshot.arrivals["/delay"]?.count == 1
            }
            #expect(started)
            // The answers reach the client within milliseconds on loopback; the slow one is 18 s off.
            try await Task.sleep(for: .seconds(1))
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            try? pipe.fileHandleForWriting.close()
            #expect(process.terminationStatus == 128 + signal)

            let records = try Self.records(in: output)
            let ok = records.filter { $0["ok"] as? Bool == true }
            #expect(ok.count == posts(), "server processed \(posts()) POSTs; records: \(records)")
            #expect(Set(ok.compactMap { $0["index"] as? Int }) == Set(1...6))
            #expect(ok.count == Set(ok.compactMap { $0["index"] as? Int }).count, "one record per POST")
            let slow = records.filter { $0["index"] as? Int == 0 }
            #expect(slow.count == 1)
            #expect(slow.first?["ok"] as? Bool == false)
            #expect(slow.first?["status"] is NSNull)
            #expect((slow.first?["error"] as? [String: Any])?["kind"] as? String == "interrupted")
            if order == "input" {
                #expect(records.compactMap { $0["index"] as? Int } == Array(0...6))
            }
            let summary = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(summary.contains("fetch: 7 records, 6 ok, 1 failed in "), "\(summary)")
            #expect(summary.contains("interrupted"), "\(summary)")
            let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))
            #expect((written as? [String: Any])?["records"] as? Int == 7)
            #expect((written as? [String: Any])?["interrupted"] as? Bool == true)
        }
    }

    static func records(in path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
