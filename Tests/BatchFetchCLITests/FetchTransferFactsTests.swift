import Foundation
import TestSupport
import Testing

/// What `fetch` records and counts about the transfers behind its records: which records shared
/// another's transfer, the time of the whole request, the status of a transfer that failed after
/// its status line, why retrying stopped, and counts of what went on the wire.
@Suite(.serialized)
struct FetchTransferFactsTests {
    /// Runs `batchfetch fetch -q` off the cooperative pool; its output and its records by index.
    private func fetch(_ arguments: [String]) async throws -> (Executable.Output, [Int: [String: Any]]) {
        let output = try await CacheCommandTests.batchfetch(["fetch", "-q"] + arguments)
        #expect(output.signal == nil && !output.hung, "\(output.summary)")
        var records: [Int: [String: Any]] = [:]
        for line in output.stdout.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[try #require(record["index"] as? Int)] = record
        }
        return (output, records)
    }

    private func stats(_ path: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require(object as? [String: Any])
    }

    @Test func identicalLinesAreSentOnceAndTheirCopiesNameTheRecordThatWasSent() async throws {
        let scratch = try ScratchDirectory("bf-dedup")
        try await TestHTTPServer.with { server in
            let failing = "\(server.baseURL)/status/500"
            let ok = "\(server.baseURL)/ok"
            let lines = [failing, ok, failing, ok, failing]
            let stats = scratch.path("stats.json")
            let (output, records) = try await self.fetch(["--retries", "2", "--stats", stats] + lines)
            #expect(output.status == 1, "\(output.summary)")
            #expect(server.snapshot.requests == 4, "one transfer of 3 attempts, one of 1")
            #expect(records.count == 5)
            #expect(records[0]?["attempts"] as? Int == 3 && records[0]?["shared_with"] == nil)
            #expect(records[1]?["attempts"] as? Int == 1 && records[1]?["shared_with"] == nil)
            for (index, owner) in [(2, 0), (3, 1), (4, 0)] {
                #expect(records[index]?["shared_with"] as? Int == owner, "record \(index)")
                #expect(records[index]?["attempts"] as? Int == 0, "record \(index)")
                #expect(records[index]?["status"] as? Int == records[owner]?["status"] as? Int)
            }
            let summary = try self.stats(stats)
            #expect(summary["requests"] as? Int == 4 && summary["retries"] as? Int == 2, "\(summary)")
            #expect(summary["records"] as? Int == 5)
            // "status 500" and a 64-byte document, each received once.
            #expect(summary["bytes"] as? Int == 10 + 64 && summary["protocols"] as? [String: Int] == ["HTTP/1.1": 2])

            let (_, separate) = try await self.fetch(["--retries", "2", "--no-dedup", "--stats", stats] + lines)
            #expect(server.snapshot.requests == 4 + 11, "every line sent, each 500 three times")
            #expect(separate.values.allSatisfy { $0["shared_with"] == nil })
            #expect(separate.values.map { $0["attempts"] as? Int ?? -1 }.sorted() == [1, 1, 3, 3, 3])
            let unshared = try self.stats(stats)
            #expect(unshared["requests"] as? Int == 11 && unshared["retries"] as? Int == 6, "\(unshared)")
        }
    }

    /// With `--skip-existing` (and with `--shard`), records carry their line's index in the whole
    /// input, not their place among the lines fetched; a copy names its owner's line the same way.
    @Test func aCopyNamesItsOwnersLineWhenLinesAreSkippedOrSharded() async throws {
        let scratch = try ScratchDirectory("bf-dedup-skip")
        try await TestHTTPServer.with { server in
            let saved = scratch.path("saved")
            try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
            try Data("saved before".utf8).write(to: URL(fileURLWithPath: saved + "/0.bin"))
            let missing = "\(server.baseURL)/status/404"
            let lines = ["\(server.baseURL)/ok?i=0", missing, "\(server.baseURL)/ok?i=2", missing]
            let (_, records) = try await self.fetch(
                ["--retries", "0", "--save-dir", saved, "--file-name", "{index}.bin", "--skip-existing"] + lines)
            #expect(records.keys.sorted() == [1, 2, 3])
            #expect(records[1]?["shared_with"] == nil && records[1]?["attempts"] as? Int == 1)
            #expect(records[3]?["shared_with"] as? Int == 1 && records[3]?["attempts"] as? Int == 0)

            // Line 20 repeats line 5; whichever shard holds that URL holds both.
            let urls = (0..<20).map { "\(server.baseURL)/ok?i=\($0)" } + ["\(server.baseURL)/ok?i=5"]
            var copies: [[String: Any]] = []
            for shard in 0..<2 {
                let (_, part) = try await self.fetch(["--shard", "\(shard)/2"] + urls)
                copies += part.values.filter { $0["index"] as? Int == 20 }
            }
            #expect(copies.count == 1)
            #expect(copies.first?["shared_with"] as? Int == 5 && copies.first?["attempts"] as? Int == 0)
        }
    }

    @Test func totalTimeCoversEveryAttemptAndTheWaitBetweenThem() async throws {
        try await TestHTTPServer.with { server in
            let retried = "\(server.baseURL)/flaky?key=total&fail=1&status=503&retryAfter=1"
            let (output, records) = try await self.fetch([retried, "\(server.baseURL)/ok", "file:///x"])
            #expect(output.status == 1, "\(output.summary)")
            let record = try #require(records[0])
            #expect(record["ok"] as? Bool == true && record["attempts"] as? Int == 2)
            let time = try #require(record["time_ms"] as? Double)
            let total = try #require(record["total_ms"] as? Double)
            #expect(time < 1000 && total >= 1000, "time_ms \(time), total_ms \(total)")
            let single = try #require(records[1])
            #expect(try #require(single["total_ms"] as? Double) >= 0)
            #expect(records[2]?["total_ms"] is NSNull, "nothing was sent")
            // The field follows time_ms.
            #expect(output.stdout.contains(#","total_ms":"#) && !output.stdout.contains(#""time_ms":null,"content"#))
        }
    }

    @Test func aStatusThatArrivedStaysInTheRecordWhenTheTransferThenFails() async throws {
        try await TestHTTPServer.with { server in
            let (_, records) = try await self.fetch([
                "--retries", "0", "--max-time", "0.5", "--max-body", "1000",
                "\(server.baseURL)/drip", "\(server.baseURL)/bytes?n=5000",
            ])
            #expect(records[0]?["status"] as? Int == 200)
            #expect((records[0]?["error"] as? [String: Any])?["kind"] as? String == "timeout")
            #expect(records[1]?["status"] as? Int == 200)
            #expect((records[1]?["error"] as? [String: Any])?["kind"] as? String == "tooLarge")
            #expect(records.values.allSatisfy { $0["ok"] as? Bool == false })
        }
    }

    @Test func theErrorSaysWhyRetryingStopped() async throws {
        try await TestHTTPServer.with { server in
            // Two runs: the server's pause holds back every request to its host.
            let (_, paused) = try await self.fetch([
                "--retries", "1", "\(server.baseURL)/flaky?key=long&fail=9&status=503&retryAfter=120",
            ])
            #expect(paused[0]?["status"] as? Int == 503 && paused[0]?["attempts"] as? Int == 1)
            let tooLong = try #require(paused[0]?["error"] as? [String: Any])
            #expect(
                tooLong["message"] as? String
                    == "HTTP status 503; the server asked to retry after 120 s, longer than the 60 s batchfetch waits")
            let (_, failing) = try await self.fetch(["--retries", "1", "\(server.baseURL)/status/502"])
            let exhausted = try #require(failing[0]?["error"] as? [String: Any])
            #expect(exhausted["message"] as? String == "HTTP status 502; gave up after 2 attempts")
        }
    }
}
