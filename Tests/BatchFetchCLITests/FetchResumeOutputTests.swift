import Foundation
import TestSupport
import Testing

/// Issue 51: `fetch -o FILE --resume` keeps FILE's complete records, sends only the others, and
/// leaves FILE as one uninterrupted run would have written it (but for times); it refuses a FILE
/// made from another input or with other options, and never cuts someone else's file.
@Suite(.serialized)
struct FetchResumeOutputTests {
    /// A slow request first (20 s the first time, at once after), six POSTs, a 404 (final) and a
    /// 503 (sent again) after it.
    static func lines(_ server: TestHTTPServer) -> [String] {
        [#"{"url":"\#(server.baseURL)/delay?ms=20000&once=resume"}"#]
            + (1...6).map { #"{"url":"\#(server.baseURL)/ok?post=\#($0)","method":"POST","body":{"n":\#($0)}}"# }
            + ["\(server.baseURL)/status/404", "\(server.baseURL)/flaky?key=resume&fail=1&status=503"]
    }

    @Test(arguments: ["input", "completion"])
    func anInterruptedRunResumedSendsOnlyWhatHadNoFinalAnswerAndEndsAsAWholeRun(order: String) async throws {
        let directory = try ScratchDirectory("fetch-resume-output")
        try await TestHTTPServer.with { server in
            let input = directory.path("requests.ndjson")
            let output = directory.path("out.ndjson")
            try (Self.lines(server).joined(separator: "\n") + "\n").write(
                toFile: input, atomically: true, encoding: .utf8)
            let arguments = [
                "fetch", "--progress", "never", "--order", order, "--retries", "0", "-i", input, "-o", output,
            ]
            let process = Process()
            process.executableURL = try Executable.batchfetch().url
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            try process.run()
            let posts = { server.arrivals.filter { $0.head.hasPrefix("POST ") } }
            let answered = await eventually(10) {
                posts().count == 6 && server.snapshot.arrivals["/status/404"]?.count == 1
                    && server.snapshot.arrivals["/flaky?key=resume"]?.count == 1
            }
            #expect(answered)
            try await Task.sleep(for: .milliseconds(500))
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            #expect(process.terminationStatus == 130)
            let interrupted = try Self.records(in: output)
            #expect(interrupted.count >= 8, "\(interrupted)")
            let keptLines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").filter {
                $0.contains(#""ok":true"#) || $0.contains(#""status":404"#)
            }
            #expect(keptLines.count == 7)
            #expect(FileManager.default.fileExists(atPath: output + ".batchfetch.json"))

            let resumed = try await Executable.batchfetch().runOffPool(arguments + ["--resume"])
            #expect(resumed.status == 1, "the 404 stays a failure, as in one whole run: \(resumed)")
            #expect(resumed.stderr.contains("kept from \(output) (--resume): 7 records, 6 ok, 1 failed for good"))
            // Each POST and the 404 reached the server once; the slow one and the 503 twice.
            #expect(
                Dictionary(grouping: posts(), by: \.target).values.map(\.count).sorted()
                    == Array(repeating: 1, count: 6))
            #expect(server.snapshot.arrivals["/status/404"]?.count == 1)
            #expect(server.snapshot.arrivals["/flaky?key=resume"]?.count == 2)
            #expect(server.snapshot.arrivals["/delay"]?.count == 2)
            #expect(!FileManager.default.fileExists(atPath: output + ".resuming"))

            // What one run with the server in the state it ended in writes: the same, but for times.
            let whole = directory.path("whole.ndjson")
            let fresh = try await Executable.batchfetch().runOffPool(Array(arguments.dropLast()) + [whole])
            #expect(fresh.status == 1, "\(fresh)")
            let records = try Self.records(in: output)
            #expect(records.count == 9)
            if order == "input" {
                let (mine, theirs) = (try Self.timeless(output), try Self.timeless(whole))
                #expect(mine == theirs, "\(Self.difference(mine, theirs))")
                #expect(records.compactMap { $0["index"] as? Int } == Array(0...8))
            } else {
                // The kept records first, byte for byte as they were, in input order (KeptRecords
                // copies them so: in completion order the interrupted file's own order is whichever
                // answer came first); then the two fetched now.
                let after = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
                let kept = Array(after.prefix(7))
                #expect(Set(kept) == Set(keptLines))
                let indices = kept.compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["index"] as? Int
                }
                #expect(indices.count == 7 && indices == indices.sorted(), "\(indices)")
                let (mine, theirs) = (try Self.timeless(output), try Self.timeless(whole))
                #expect(
                    Set(mine.split(separator: "\n")) == Set(theirs.split(separator: "\n")),
                    "\(Self.difference(mine, theirs))")
            }
        }
    }

    @Test func aFileFromAnotherInputOrOtherOptionsOrWithoutItsSidecarIsRefusedAndKept() async throws {
        let directory = try ScratchDirectory("fetch-resume-refusals")
        try await TestHTTPServer.with { server in
            let input = directory.path("urls.txt")
            let other = directory.path("other.txt")
            let output = directory.path("out.ndjson")
            try "\(server.baseURL)/ok\n\(server.baseURL)/status/503\n".write(
                toFile: input, atomically: true, encoding: .utf8)
            try "\(server.baseURL)/ok?other\n".write(toFile: other, atomically: true, encoding: .utf8)
            let base = ["fetch", "-q", "--retries", "0", "-o", output]
            let first = try await Executable.batchfetch().runOffPool(base + ["-i", input])
            #expect(first.status == 1, "\(first)")
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            let requests = server.snapshot.requests

            let cases: [(arguments: [String], reason: String)] = [
                (["-i", other], "was written from another input"),
                (["-i", input, "-X", "PUT"], "with other request or record options"),
                (["-i", input, "--fields", "headers"], "with other request or record options"),
            ]
            for (arguments, reason) in cases {
                let run = try await Executable.batchfetch().runOffPool(base + arguments + ["--resume"])
                #expect(run.status == 2, "\(arguments): \(run)")
                #expect(run.stderr.contains(reason), "\(arguments): \(run)")
            }
            try FileManager.default.removeItem(atPath: output + ".batchfetch.json")
            let orphan = try await Executable.batchfetch().runOffPool(base + ["-i", input, "--resume"])
            #expect(orphan.status == 2 && orphan.stderr.contains("is missing or unreadable"), "\(orphan)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == written)
            #expect(server.snapshot.requests == requests, "nothing sent")

            let stdin = try await Executable.batchfetch().runOffPool(
                base + ["--resume"], stdin: "\(server.baseURL)/ok\n")
            #expect(stdin.status == 2 && stdin.stderr.contains("standard input cannot be read again"), "\(stdin)")
        }
    }

    @Test func aTornLastLineIsCutAndSomeoneElsesFileIsNot() async throws {
        let directory = try ScratchDirectory("fetch-resume-torn")
        try await TestHTTPServer.with { server in
            let input = directory.path("urls.txt")
            let output = directory.path("out.ndjson")
            try "\(server.baseURL)/ok\n\(server.baseURL)/status/404\n".write(
                toFile: input, atomically: true, encoding: .utf8)
            let arguments = ["fetch", "-q", "-i", input, "-o", output]
            _ = try await Executable.batchfetch().runOffPool(arguments)
            let whole = try String(contentsOfFile: output, encoding: .utf8)
            let requests = server.snapshot.requests

            // A run killed mid-write: its last line torn. Both records are final: nothing is sent.
            try (whole + #"{"index":2,"url":"ht"#).write(toFile: output, atomically: true, encoding: .utf8)
            let resumed = try await Executable.batchfetch().runOffPool(arguments + ["--resume"])
            #expect(resumed.status == 1, "the 404 stays a failure: \(resumed)")
            #expect(try String(contentsOfFile: output, encoding: .utf8) == whole)
            #expect(server.snapshot.requests == requests)

            let foreign = whole + "name,price\n"
            try foreign.write(toFile: output, atomically: true, encoding: .utf8)
            let refused = try await Executable.batchfetch().runOffPool(arguments + ["--resume"])
            #expect(
                refused.status == 2 && refused.stderr.contains("line 3 is not a batchfetch fetch record"), "\(refused)")
            #expect(try String(contentsOfFile: output, encoding: .utf8) == foreign)
        }
    }

    /// The lines of each text that the other lacks.
    static func difference(_ mine: String, _ theirs: String) -> String {
        let (a, b) = (Set(mine.split(separator: "\n")), Set(theirs.split(separator: "\n")))
        return "resumed only: \(a.subtracting(b).sorted())\nwhole run only: \(b.subtracting(a).sorted())"
    }

    /// The file's text with the two time fields' values blanked, and `/flaky`'s count of the hits
    /// it had (the server's state, which the whole run found one further on).
    static func timeless(_ path: String) throws -> String {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #""(time_ms|total_ms|hits)":[0-9.null]+"#)
        return pattern.stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "\"$1\":0")
    }

    static func records(in path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}
