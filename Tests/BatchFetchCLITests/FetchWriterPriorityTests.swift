import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `--writer-nice`: the threads that write records run below the engine thread's priority, read
/// from /proc while a run is under way.
@Suite(.serialized)
struct FetchWriterPriorityTests {
    /// Each thread's name and nice value, from /proc/PID/task/TID/stat (the fields after the
    /// name's closing parenthesis start at the third; nice is the nineteenth).
    private func threads(of pid: Int32) -> [(name: String, nice: Int)] {
        let folder = "/proc/\(pid)/task"
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "\(folder)/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else {
                return nil
            }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else {
                return nil
            }
            return (String(stat[stat.index(after: open)..<close]), nice)
        }
    }

    /// The calling thread's nice value, which a child it starts inherits (on Linux each thread has
    /// its own).
    private func ownNice() -> Int {
        Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
    }

    /// Starts `fetch` on standard input, waits for its first record, and returns its threads'
    /// priorities taken then (the run is still open), after ending it, with the nice value it
    /// started with.
    private func prioritiesWhileWriting(
        _ extra: [String], server: TestHTTPServer
    ) throws -> (threads: [(name: String, nice: Int)], own: Int) {
        let process = Process()
        process.executableURL = try Executable("batchfetch").url
        process.arguments = ["fetch", "-q", "-i", "-"] + extra
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let own = self.ownNice()
        try process.run()
        defer { process.endAndWait() }
        input.fileHandleForWriting.write(Data("\(server.baseURL)/ok?first\n".utf8))
        let bytes = output.fileHandleForReading.readThroughFirstLine(within: 10)
        try #require(bytes.contains(0x0A), "no record within 10 s")
        let threads = self.threads(of: process.processIdentifier)
        try input.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        return (threads, own)
    }

    @Test func recordWritersRunTenLevelsBelowTheEngineThread() async throws {
        try await TestHTTPServer.with { server in
            let (threads, own) = try self.prioritiesWhileWriting([], server: server)
            let engine = try #require(threads.first { $0.name == "batchfetch-curl" }, "threads: \(threads)")
            #expect(engine.nice == own)
            #expect(threads.contains { $0.nice == min(19, own + 10) }, "threads: \(threads)")
        }
    }

    @Test func writerNiceZeroLeavesEveryThreadAtItsPriority() async throws {
        try await TestHTTPServer.with { server in
            let (threads, own) = try self.prioritiesWhileWriting(["--writer-nice", "0"], server: server)
            #expect(threads.contains { $0.name == "batchfetch-curl" && $0.nice == own }, "threads: \(threads)")
            #expect(threads.allSatisfy { $0.nice <= own }, "threads: \(threads)")
        }
    }

    /// A crawl against a replica that answers every request 20 ms late lasts seconds; its threads
    /// are read until one writing a facet has lowered itself.
    @Test func crawlWritersRunBelowTheEngineThread() async throws {
        var replica = ReplicaConfiguration()
        replica.faults.latency = ReplicaLatency(milliseconds: 20)
        try await ReplicaServer.withServer(replica) { server in
            let directory = try ScratchDirectory("bf-crawl-nice")
            let process = Process()
            process.executableURL = try Executable("batchfetch").url
            process.arguments = [
                "crawl", "--base-url", server.baseURL, "--details", "-q", "-c", "2", "-o",
                directory.path("crawl.ndjson"),
            ]
            process.standardError = FileHandle.nullDevice
            let own = self.ownNice()
            try process.run()
            defer { process.endAndWait() }
            var threads: [(name: String, nice: Int)] = []
            _ = await eventually(20) {
                threads = self.threads(of: process.processIdentifier)
                return threads.contains { $0.nice == min(19, own + 10) } || !process.isRunning
            }
            #expect(threads.contains { $0.nice == min(19, own + 10) }, "threads: \(threads)")
            #expect(threads.contains { $0.name == "batchfetch-curl" && $0.nice == own }, "threads: \(threads)")
        }
    }

    @Test func writerNiceOutsideZeroToNineteenIsAUsageError() throws {
        for (command, value) in [("fetch", "-1"), ("fetch", "20"), ("crawl", "20")] {
            let arguments = [command, "--writer-nice", value] + (command == "fetch" ? ["http://127.0.0.1:1/"] : [])
            let output = try Executable("batchfetch").run(arguments)
            #expect(output.status == 2, "\(command): \(output.summary)")
            #expect(
                output.stderr.contains("--writer-nice \(value) is out of range: give 0 to 19"),
                "\(command): \(output.summary)")
        }
    }
}
