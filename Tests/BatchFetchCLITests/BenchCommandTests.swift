import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch bench` end to end: the real executable against the replica on loopback, its
/// figures checked against the replica's fixed latency and its own request counters.
@Suite(.serialized)
struct BenchCommandTests {
    private struct Report: Decodable {
        struct Latency: Decodable {
            let min: Double
            let p50: Double
            let p90: Double
            let p99: Double
            let p99_9: Double
            let max: Double
        }

        let mode: String
        let requests: Int
        let ok: Int
        let failed: Int
        let duration_s: Double
        let requests_per_second: Double
        let bytes: Int
        let connections: Int
        let statuses: [String: Int]
        let errors: [String: Int]
        let latency_ms: Latency?
    }

    private func bench(_ arguments: [String]) throws -> (status: Int32, report: Report, stderr: String) {
        let output = try Executable("batchfetch").run(["bench"] + arguments + ["--json"])
        let report = try JSONDecoder().decode(Report.self, from: Data(output.stdout.utf8))
        return (output.status, report, output.stderr)
    }

    private func replica(latency milliseconds: Int) -> ReplicaConfiguration {
        var configuration = ReplicaConfiguration()
        configuration.faults.latency = ReplicaLatency(milliseconds: milliseconds)
        return configuration
    }

    @Test func aHistogramFileThatIsTheInputIsRefusedAndTheInputKept() throws {
        let directory = try ScratchDirectory("bench-places")
        let urls = directory.path("urls.txt")
        try "http://127.0.0.1:9/\n".write(toFile: urls, atomically: true, encoding: .utf8)
        let output = try Executable("batchfetch").run(["bench", "-i", urls, "--hdr", urls, "-n", "1"])
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("is the input file"), "\(output)")
        #expect(try String(contentsOfFile: urls, encoding: .utf8) == "http://127.0.0.1:9/\n")
    }

    @Test func benchSendsNoAcceptEncodingUnlessAskedTo() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/gzip"
            let plain = try self.bench(["-n", "20", "-c", "4", url])
            #expect(plain.status == 0 && plain.report.ok == 20)
            #expect(server.snapshot.acceptingEncodings == 0)
            let compressed = try self.bench(["--compressed", "-n", "20", "-c", "4", url])
            #expect(compressed.status == 0 && compressed.report.ok == 20)
            #expect(server.snapshot.acceptingEncodings == 20)
            // Bodies are counted as decoded: 19 bytes of JSON each, not the 39 gzip bytes sent.
            #expect(compressed.report.bytes == 20 * 19 && plain.report.bytes == 20 * 19)
        }
    }

    @Test func theClosedLoopMedianIsTheReplicasFixedLatency() async throws {
        try await ReplicaServer.withServer(self.replica(latency: 20)) { server in
            let url = server.url("list.php?c=list")
            // Few in flight: the replica's one event loop thread (a debug build here) answers
            // simultaneous requests one after another, which adds its own time to theirs.
            let run = try self.bench([url, "-n", "50", "-c", "2"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.report.mode == "closed-loop")
            #expect(run.report.requests == 50 && run.report.ok == 50 && run.report.statuses == ["200": 50])
            let latency = try #require(run.report.latency_ms)
            // A double-counted phase makes every sample at least twice the delay; a loaded machine
            // slows most samples, not the fastest, so the fastest is what is held below that.
            #expect(latency.p50 >= 20 && latency.min < 40, "p50 \(latency.p50) ms, min \(latency.min) ms")
            #expect(latency.min >= 20, "no response can beat the server's delay")
            #expect((1...2).contains(run.report.connections))
            #expect(run.report.bytes > 0 && run.report.bytes % 50 == 0, "one document, 50 times")
            #expect(server.stats().requests == 50)
        }
    }

    @Test func anOpenLoopAboveCapacityShowsTheQueueingThatAClosedLoopHides() async throws {
        try await ReplicaServer.withServer(self.replica(latency: 20)) { server in
            let url = server.url("list.php?c=list")
            // 2 connections × 20 ms = 100 requests a second at most.
            let closed = try self.bench([url, "-n", "40", "-c", "2"])
            let open = try self.bench([url, "-n", "150", "-c", "2", "--rate", "400"])
            #expect(closed.status == 0 && open.status == 0, "\(closed.stderr) \(open.stderr)")
            #expect(open.report.mode == "open-loop" && open.report.requests == 150 && open.report.ok == 150)
            let closedLatency = try #require(closed.report.latency_ms)
            let openLatency = try #require(open.report.latency_ms)
            // Offered 400/s for 0.375 s against 100/s: the last requests wait about a second. The
            // closed loop never counts that wait: its tail stays a fraction of the open loop's
            // (compared with each other, not with the clock, which other suites slow down).
            #expect(openLatency.p99 > 500, "open-loop p99 \(openLatency.p99) ms")
            #expect(
                closedLatency.p99 * 4 < openLatency.p99,
                "closed-loop p99 \(closedLatency.p99) ms, open-loop \(openLatency.p99) ms")
            #expect(openLatency.p50 > 10 * closedLatency.p50)
            #expect(open.report.duration_s > 1.2, "150 requests at 100/s take 1.5 s whatever the offered rate")
        }
    }

    /// Below capacity (50/s, four connections, 20 ms each) the open loop's latency is the server's;
    /// at four times one connection's capacity it is the queue's, which grows by 15 ms a request
    /// (a median of ~200 ms). Compared with each other, not with the clock: a loaded machine
    /// slows both runs alike, and only the second one queues.
    @Test func anOpenLoopBelowCapacityMeasuresTheServersLatency() async throws {
        try await ReplicaServer.withServer(self.replica(latency: 20)) { server in
            let url = server.url("list.php?c=list")
            let run = try self.bench([url, "-n", "25", "-c", "4", "--rate", "50"])
            #expect(run.status == 0, "\(run.stderr)")
            let latency = try #require(run.report.latency_ms)
            #expect(latency.p50 >= 20, "p50 \(latency.p50) ms (see the closed-loop test)")
            #expect(run.report.duration_s >= 0.48, "25 requests at 50/s")
            let over = try self.bench([url, "-n", "25", "-c", "1", "--rate", "200"])
            #expect(over.status == 0, "\(over.stderr)")
            let queued = try #require(over.report.latency_ms)
            #expect(queued.p50 > 3 * latency.p50, "below capacity p50 \(latency.p50) ms, over it \(queued.p50) ms")
        }
    }

    @Test func theCountIsExactOverCycledURLsAndTheHgrmFileParses() async throws {
        try await ReplicaServer.withServer { server in
            let urls = ["list.php?c=list", "list.php?g=list", "list.php?a=list"].map(server.url)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bf-\(UUID().uuidString).hgrm")
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try self.bench(urls + ["-n", "1234", "-c", "8", "--hdr", file.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.report.requests == 1234 && run.report.ok == 1234)
            let stats = server.stats()
            #expect(stats.requests == 1234)
            #expect(stats.requestsByURL.values.sorted() == [411, 411, 412], "cycled in turn: \(stats.requestsByURL)")

            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.first?.split(separator: " ") == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"])
            let rows = lines.dropFirst().filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
            let percentiles = rows.compactMap { $0.count >= 3 ? Double($0[1]) : nil }
            #expect(percentiles.count == rows.count && percentiles.count > 10)
            #expect(zip(percentiles, percentiles.dropFirst()).allSatisfy { $0 <= $1 }, "percentiles are monotonic")
            #expect(percentiles.last == 1.0)
            #expect(rows.last.map { Int($0[2]) } == 1234)
            #expect(lines.last?.hasPrefix("#[Buckets") == true && lines.contains { $0.hasPrefix("#[Mean") })
        }
    }

    @Test func errorsAreCountedByKindAndStatusAndSetTheExitStatus() async throws {
        try await ReplicaServer.withServer { server in
            let urls = [server.url("list.php?c=list"), server.url("nothing.php"), "http://127.0.0.1:1/closed"]
            let run = try self.bench(urls + ["-n", "30", "-c", "3", "--retries", "0"])
            #expect(run.status == 1)
            #expect(run.report.requests == 30 && run.report.ok == 10 && run.report.failed == 20)
            #expect(run.report.statuses == ["200": 10, "404": 10])
            #expect(run.report.errors == ["connectFailed": 10])
        }
    }

    /// A server that accepts connections and never answers: every request times out, and the
    /// connections opened for them are still counted, retries' included.
    @Test func connectionsOpenedByRequestsThatFailedAreCounted() async throws {
        try await TestHTTPServer.with { server in
            let run = try self.bench([
                "\(server.baseURL)/hang", "-n", "4", "-c", "2", "--max-time", "0.3", "--retries", "1",
            ])
            #expect(run.status == 1 && run.report.errors == ["timeout": 4], "\(run.stderr)")
            // A timed-out connection is closed, not reused: one per attempt.
            #expect(run.report.connections == 8 && server.snapshot.connectionsAccepted == 8)
        }
    }

    @Test func aTimedRunStopsByItselfAndTheTextReportHasABarChart() async throws {
        try await ReplicaServer.withServer(self.replica(latency: 5)) { server in
            // By itself: before the runner's deadline, which would otherwise kill it (and say so).
            let output = try Executable("batchfetch").run(
                ["bench", server.url("list.php?c=list"), "-d", "300ms", "-c", "4"], deadline: 60)
            #expect(!output.hung)
            #expect(output.status == 0, "\(output.stderr)")
            let text = output.stdout
            #expect(text.hasPrefix("closed-loop, 4 in flight: "), "\(text)")
            #expect(text.contains("p99.9 ") && text.contains("latency distribution:"))
            let bars = text.split(separator: "\n").filter { $0.hasSuffix("%") && $0.contains("|") }
            #expect(!bars.isEmpty && bars.contains { $0.contains("|####") })
            let requests = text.split(separator: " ").firstIndex(of: "requests").map {
                text.split(separator: " ")[$0 - 1]
            }
            #expect(Int(requests ?? "") ?? 0 > 50, "about 4 / 5 ms × 0.3 s = 240 requests")
        }
    }

    @Test func quietPrintsOneSummaryLine() async throws {
        try await ReplicaServer.withServer { server in
            let output = try Executable("batchfetch").run(["bench", "-q", "-n", "50", server.url("list.php?c=list")])
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("50 requests, 50 ok, 0 failed in ") == true)
            #expect(lines.first?.contains("req/s") == true && lines.first?.contains("p99") == true)
        }
    }

    @Test func usageErrorsExitWithTwo() throws {
        let cases: [([String], String)] = [
            (["http://127.0.0.1:1/", "-n", "10", "-d", "1s"], "not both"),
            (["http://127.0.0.1:1/", "-n", "0"], "at least 1"),
            (["http://127.0.0.1:1/", "-d", "soon"], "duration"),
            (["http://127.0.0.1:1/", "--rate", "0"], "rate"),
            ([], "no URLs"),
            (["ftp://127.0.0.1/file"], "scheme"),
            (["-i", "/nonexistent/urls.txt"], "/nonexistent/urls.txt"),
            (["http://127.0.0.1:1/", "--interval", "1ms"], "--interval"),
            (["http://127.0.0.1:1/", "--stages", "1s:0-x"], "is not a stage"),
            (["http://127.0.0.1:1/", "--stages", "1s:10", "--rate", "5"], "--stages sets the pace"),
            (["http://127.0.0.1:1/", "--series", "/nonexistent/dir/s.ndjson"], "/nonexistent/dir/s.ndjson"),
        ]
        for (arguments, message) in cases {
            let output = try Executable("batchfetch").run(["bench"] + arguments)
            #expect(output.status == 2, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
    }
}
