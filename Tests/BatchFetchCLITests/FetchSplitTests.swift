import Foundation
import TestSupport
import Testing

/// `fetch --split-min`: the last large downloads are split into byte ranges over extra
/// connections, and each record still holds its whole body, byte for byte. nginx serves the
/// files at 2 MB/s per connection (`limit_rate`), so that splitting shows in the wall time.
@Suite(.serialized)
struct FetchSplitTests {
    private static let size = 4 << 20

    /// Files `f0.bin`… of random bytes, nginx serving them, and the run's records by URL.
    func withFiles<T>(
        count: Int, _ body: (RangeNginx, [Data]) async throws -> T
    ) async throws -> T? {
        guard let nginx = RangeNginx.executable else {
            Issue.record("nginx is not installed (scripts/setup --build-tests installs it)")
            return nil
        }
        let scratch = try ScratchDirectory("split")
        let root = scratch.path("files")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var generator = SeededGenerator(seed: 81)
        var files: [Data] = []
        for index in 0..<count {
            var words = (0..<Self.size / 8).map { _ in generator.next() }
            let bytes = words.withUnsafeMutableBytes { Data($0) }
            try bytes.write(to: URL(fileURLWithPath: "\(root)/f\(index).bin"))
            files.append(bytes)
        }
        let server = try RangeNginx(nginx: nginx, directory: scratch.path(""), root: root, rate: "2m")
        defer { server.stop() }
        return try await body(server, files)
    }

    /// Fetches `count` files from `port` with `flags`; checks every record is ok and holds its
    /// file's bytes; returns the wall time in seconds.
    private func fetch(
        port: Int, files: [Data], flags: [String], deadline: Double = 60
    ) async throws -> Double {
        let urls = files.indices.map { "http://127.0.0.1:\(port)/f\($0).bin" }
        let started = Date()
        let output = try await Executable("batchfetch").runOffPool(
            ["fetch", "-q", "--body", "base64", "--retries", "0"] + flags, stdin: urls.joined(separator: "\n") + "\n",
            deadline: deadline)
        let wall = Date().timeIntervalSince(started)
        #expect(output.status == 0, "\(output.summary)")
        let records = try output.records()
        #expect(records.count == files.count)
        for record in records {
            let url = record["url"] as? String ?? ""
            guard let index = urls.firstIndex(of: url) else {
                Issue.record("a record for an unknown URL: \(url)")
                continue
            }
            #expect(record["ok"] as? Bool == true && record["status"] as? Int == 200, "\(url)")
            #expect(record["bytes"] as? Int == Self.size, "\(url)")
            let body = (record["body"] as? String).flatMap { Data(base64Encoded: $0) }
            #expect(body == files[index], "\(url): the body is not the file's bytes")
        }
        return wall
    }

    /// Without the flag no range is asked for; with it, range requests with If-Range bring the
    /// same bytes.
    @Test func splitDownloadsComeWhole() async throws {
        _ = try await self.withFiles(count: 3) { server, files in
            let whole = try await self.fetch(port: server.honours, files: files, flags: ["-c", "8"])
            let unsplit = server.accessLog()
            #expect(unsplit.count == 3)
            #expect(unsplit.allSatisfy { $0.range.isEmpty && $0.status == 200 })
            let split = try await self.fetch(
                port: server.honours, files: files, flags: ["-c", "8", "--split-min", "256K"])
            let ranges = server.accessLog().dropFirst(unsplit.count).filter { !$0.range.isEmpty }
            #expect(ranges.count >= 3)
            #expect(
                ranges.allSatisfy { $0.status == 206 && $0.ifRange.hasPrefix("'") },
                "\(ranges.map { "\($0.status) \($0.range) \($0.ifRange)" })")
            // How much sooner is the benchmarks' to say (W9b): beside other tests, the wall here
            // includes waiting for the shared process pool.
            print("split-min wall: \(split) s with the flag, \(whole) s without, \(ranges.count) ranges")
        }
    }

    /// A server that answers a range with the whole entity (200): the helper's answer is refused
    /// and the download ends as one, its bytes neither lost nor doubled.
    @Test func aServerThatIgnoresRangesStillGivesWholeBodies() async throws {
        _ = try await self.withFiles(count: 1) { server, files in
            _ = try await self.fetch(port: server.ignores, files: files, flags: ["-c", "4", "--split-min", "256K"])
            let log = server.accessLog()
            #expect(log.contains { !$0.range.isEmpty && $0.status == 200 })
        }
    }

    /// An entity whose ETag changed (If-Range fails, 200 whole): the record is still the file.
    @Test func aChangedValidatorStillGivesWholeBodies() async throws {
        _ = try await self.withFiles(count: 1) { server, files in
            _ = try await self.fetch(port: server.changes, files: files, flags: ["-c", "4", "--split-min", "256K"])
            let log = server.accessLog()
            #expect(log.contains { !$0.range.isEmpty && !$0.ifRange.isEmpty && $0.status == 200 })
        }
    }

    /// Helpers whose connections are closed unanswered: the download goes on as one.
    @Test func aHelperCutOffLeavesTheRecordWhole() async throws {
        _ = try await self.withFiles(count: 1) { server, files in
            _ = try await self.fetch(port: server.cuts, files: files, flags: ["-c", "4", "--split-min", "256K"])
            #expect(server.accessLog().contains { !$0.range.isEmpty })
        }
    }

    /// Helpers that stall until --max-time ends them, after the parent's own part came whole: the
    /// parent asks for the rest from what came in order (an open range with If-Range).
    @Test func aHelperThatFailsAfterTheParentsPartEndsIsMadeUpByAResumedRequest() async throws {
        _ = try await self.withFiles(count: 1) { server, files in
            _ = try await self.fetch(
                port: server.stalls, files: files, flags: ["-c", "2", "--split-min", "256K", "--max-time", "4"])
            let log = server.accessLog()
            #expect(log.contains { $0.range.hasSuffix("-") && !$0.ifRange.isEmpty && $0.status == 206 })
        }
    }
}
