import CocktailReplica
import Foundation
import TestSupport
import Testing

/// Issue 51 for `crawl`: a signal loses nothing the server answered that the output can hold.
/// Requests go one at a time (`-c 1`) to a replica that answers each after a fixed delay, and the
/// signal comes between two answers, so the server's counts say what must be written.
@Suite(.serialized)
struct CrawlInterruptTests {
    /// Without `--details` or `--complete` a facet is complete once its list is in: each list the
    /// server answered before the signal is a line of the file, in list order; `--resume` then
    /// finishes it to an uninterrupted run's bytes.
    @Test(arguments: [SIGINT, SIGTERM])
    func facetListsThatArrivedAreWrittenWhenASignalStopsTheCrawl(signal: Int32) async throws {
        var replica = ReplicaConfiguration()
        replica.faults.latency = ReplicaLatency(milliseconds: 500)
        try await ReplicaServer.withServer(replica) { server in
            let directory = try ScratchDirectory("crawl-interrupt")
            let arguments = ["crawl", "--base-url", server.baseURL, "--by", "glass", "--progress", "never"]
            let reference = directory.path("reference.ndjson")
            let whole = try await Executable.batchfetch().runOffPool(arguments + ["-q", "-c", "8", "-o", reference])
            #expect(whole.status == 0, "\(whole.stderr)")
            let expected = try Data(contentsOf: URL(fileURLWithPath: reference))
            let facets = server.catalogue.glasses.count
            #expect(facets >= 10)

            let output = directory.path("out.ndjson")
            let stats = directory.path("stats.json")
            let answeredBefore = Self.answered(server, path: "filter.php")
            let run = try Self.start(
                arguments + ["-c", "1", "-o", output, "--stats", stats], errors: directory.path("stderr.txt"))
            let answered = try await Self.signal(
                run, signal,
                once: {
                    Self.answered(server, path: "filter.php") - answeredBefore
                }, reaches: 3)
            let lines = try Data(contentsOf: URL(fileURLWithPath: output)).split(separator: 0x0A)
            let answeredAtExit = Self.answered(server, path: "filter.php") - answeredBefore
            #expect(run.terminationStatus == 128 + signal)
            #expect(
                lines.count >= answered && lines.count <= answeredAtExit,
                "\(lines.count) lines; the server answered \(answered) lists before the signal, \(answeredAtExit) in all"
            )
            #expect(lines.count < facets, "the signal came mid-crawl")
            #expect(
                expected.starts(with: try Data(contentsOf: URL(fileURLWithPath: output))), "a prefix of the whole run")

            let summary = try String(contentsOfFile: directory.path("stderr.txt"), encoding: .utf8)
            #expect(summary.contains("crawl: \(lines.count) of \(facets) glass facets"), "\(summary)")
            #expect(summary.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(summary)")
            let written = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
            #expect(written["interrupted"] as? Bool == true)
            #expect((written["summary"] as? [String: Any])?["emitted"] as? Int == lines.count)

            let resumed = try await Executable.batchfetch().runOffPool(
                arguments + ["-q", "-c", "8", "-o", output, "--resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == expected)
        }
    }

    /// A signal while `--thumbnails` saves the images: every image the server sent before it is
    /// saved, none is counted failed, and the run says it was interrupted (it used to end as if
    /// complete, exit 0).
    @Test func imagesThatArrivedAreSavedWhenASignalStopsTheirDownload() async throws {
        var replica = ReplicaConfiguration(selfHostedImages: true)
        replica.faults.latency = ReplicaLatency(milliseconds: 400)
        try await ReplicaServer.withServer(replica) { server in
            let directory = try ScratchDirectory("crawl-interrupt-images")
            let images = directory.path("images")
            let output = directory.path("out.ndjson")
            let stats = directory.path("stats.json")
            let run = try Self.start(
                [
                    "crawl", "--base-url", server.baseURL, "--by", "category", "-c", "1", "-o", output, "--stats",
                    stats, "--thumbnails", images,
                ], errors: directory.path("stderr.txt"))
            let answered = try await Self.signal(
                run, SIGINT, once: { Self.answered(server, path: "/images/") }, reaches: 3)
            let answeredAtExit = Self.answered(server, path: "/images/")
            #expect(run.terminationStatus == 130)
            let saved = try FileManager.default.contentsOfDirectory(atPath: images).filter { $0.hasSuffix(".jpg") }
            #expect(
                saved.count >= answered && saved.count <= answeredAtExit,
                "\(saved.count) saved; the server sent \(answered) images before the signal, \(answeredAtExit) in all")
            let summary = try String(contentsOfFile: directory.path("stderr.txt"), encoding: .utf8)
            #expect(summary.contains("thumbnails: \(saved.count) saved, 0 already there, 0 failed"), "\(summary)")
            #expect(summary.contains("interrupted"), "\(summary)")
            let written = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
            #expect(written["interrupted"] as? Bool == true)
        }
    }

    /// Responses with status 200 the replica finished for paths containing `path`.
    private static func answered(_ server: ReplicaServer, path: String) -> Int {
        server.stats().statusesByPath.filter { $0.key.contains(path) }.reduce(0) { $0 + ($1.value["200"] ?? 0) }
    }

    private static func start(_ arguments: [String], errors: String) throws -> Process {
        #expect(FileManager.default.createFile(atPath: errors, contents: nil))
        let process = Process()
        process.executableURL = try Executable.batchfetch().url
        process.arguments = arguments
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
        return process
    }

    /// Once `count` reaches `target` and has not moved for 150 ms (the last answer is read by
    /// then; with the replica's delay of 400 ms or more the next is not due), sends `signal`, then
    /// waits for the exit (at most 30 s). The timing runs on a thread of its own: the cooperative
    /// pool that async waits share is held up by other suites' work.
    /// - Returns: `count` when the signal was sent.
    private static func signal(
        _ process: Process, _ signal: Int32, once count: @escaping @Sendable () -> Int, reaches target: Int
    ) async throws -> Int {
        let pid = process.processIdentifier
        let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Thread {
                let deadline = Date().addingTimeInterval(30)
                while count() < target && Date() < deadline {
                    usleep(5_000)
                }
                var answered = count()
                for _ in 0..<10 {
                    usleep(150_000)
                    let now = count()
                    if now == answered {
                        break
                    }
                    answered = now
                }
                kill(pid, signal)
                continuation.resume(returning: answered)
            }.start()
        }
        #expect(answered >= target, "the server answered \(answered) requests")
        let exited = await eventually(30) { !process.isRunning }
        if !exited {
            kill(pid, SIGKILL)
        }
        process.waitUntilExit()
        #expect(exited, "the crawl went on after the signal")
        return answered
    }
}
