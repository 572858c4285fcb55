import Foundation
import TestSupport
import Testing

/// `batchfetch merge` end to end: real `fetch --shard K/N` runs against the test server, merged
/// by the real executable.
@Suite(.serialized)
struct MergeCommandTests {
    private func urls(_ server: TestHTTPServer, count: Int) -> [String] {
        (0..<count).map { "\(server.baseURL)/ok?i=\($0)" } + ["# a comment", "", "file:///not-http"]
    }

    @Test func completeShardsMergeToTheBytesOfOneRun() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: self.urls(server, count: 150))
            defer { folder.remove() }
            let whole = try folder.whole()
            try folder.fetchShards(4)
            let merged = try folder.merge(folder.shards(4).reversed() + ["-o", folder.file("all.ndjson")])
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stdout.isEmpty)
            #expect(merged.stderr.contains("151 of 151 records from 4 files (4 shards of \(folder.urls)), all there"))
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)
            let quiet = try folder.merge(["-q"] + folder.shards(4))
            #expect(quiet.status == 0 && quiet.stderr.isEmpty)
            #expect(ShardFolder.withoutTimes(quiet.stdout) == whole)
        }
    }

    @Test func aMissingShardIsNamedWithTheCommandThatFetchesItAgain() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: self.urls(server, count: 120))
            defer { folder.remove() }
            let whole = try folder.whole()
            try folder.fetchShards(4)
            let lost = try folder.lines(of: "shard.2.ndjson").count
            try FileManager.default.removeItem(atPath: folder.file("shard.2.ndjson"))
            try FileManager.default.removeItem(atPath: folder.file("shard.2.stats.json"))
            let incomplete = try folder.merge(folder.shards(4) + ["-o", folder.file("all.ndjson")])
            #expect(incomplete.status == 1)
            #expect(incomplete.stderr.contains("\(folder.file("shard.2.ndjson")) does not exist"))
            #expect(incomplete.stderr.contains("\(121 - lost) of 121 records from 3 files (4 shards"))
            #expect(incomplete.stderr.contains("shard 2/4 missing: no records or stats file"))
            let command = try #require(incomplete.stderr.split(separator: "\n").first { $0.hasPrefix("  ") })
            #expect(
                command.hasSuffix(
                    "fetch -q --shard 2/4 -i \(folder.urls) -o \(folder.file("shard.2.ndjson")) "
                        + "--stats \(folder.file("shard.2.stats.json"))"), "\(command)")
            // Exit 1 still writes what there is, in order.
            #expect(try folder.lines(of: "all.ndjson").count == 121 - lost)

            // 1: the shard holding file:///not-http has a failed record, as the whole run does.
            #expect(try ShardFolder.shell(String(command)) <= 1)
            let complete = try folder.merge(folder.shards(4) + ["-o", folder.file("all.ndjson")])
            #expect(complete.status == 0, "\(complete.stderr)")
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)
        }
    }

    @Test func aShardCutOffByAKillIsNamed() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: self.urls(server, count: 80))
            defer { folder.remove() }
            try folder.fetchShards(2)
            // A shard killed while writing: its last record cut off, its stats never written.
            let text = try String(contentsOfFile: folder.file("shard.1.ndjson"), encoding: .utf8)
            let cut = text.dropLast(20)
            try Data(cut.utf8).write(to: URL(fileURLWithPath: folder.file("shard.1.ndjson")))
            let cutIndex = try #require(cut.split(separator: "\n").last.flatMap { ShardFolder.index(of: $0) })
            try FileManager.default.removeItem(atPath: folder.file("shard.1.stats.json"))
            let killed = try folder.merge(folder.shards(2) + ["-o", folder.file("all.ndjson")])
            #expect(killed.status == 1)
            #expect(killed.stderr.contains("ends in a cut-off record (index \(cutIndex)), left out"))
            #expect(killed.stderr.contains("shard 1/2 missing: no stats file says it ran"))
            #expect(!(try folder.lines(of: "all.ndjson").contains { ShardFolder.index(of: $0) == cutIndex }))

        }
    }

    @Test func anInterruptedShardIsNamedWithItsOwnCommand() async throws {
        try await TestHTTPServer.with { server in
            // Fast URLs, then slow ones: the run is stopped (SIGTERM, as scancel sends) while it
            // waits. Slow enough (three waves of 10 s at -c 4) that a loaded machine cannot finish
            // first, as it once did with 3 s; shard 0 runs them in one wave.
            let lines =
                (0..<40).map { "\(server.baseURL)/ok?i=\($0)" }
                + (0..<20).map { "\(server.baseURL)/delay?ms=10000&i=\($0)" }
            let folder = try ShardFolder(lines: lines)
            defer { folder.remove() }
            try folder.fetchShard(0, of: 2)
            let process = Process()
            process.executableURL = try Executable("batchfetch").url
            process.arguments = [
                "fetch", "-q", "--shard", "1/2", "-c", "4", "-i", folder.urls, "-o", folder.file("shard.1.ndjson"),
                "--stats", folder.file("shard.1.stats.json"),
            ]
            try process.run()
            let started = await eventually(10) { (try? folder.lines(of: "shard.1.ndjson").count) ?? 0 > 0 }
            #expect(started)
            process.terminate()
            process.waitUntilExit()
            #expect(process.terminationStatus == 143, "SIGTERM: 128 + 15")
            let written = try folder.lines(of: "shard.1.ndjson").count
            let stats = try String(contentsOfFile: folder.file("shard.1.stats.json"), encoding: .utf8)
            #expect(stats.contains("\"complete\" : false"))
            let interrupted = try folder.merge(folder.shards(2))
            #expect(interrupted.status == 1)
            #expect(
                interrupted.stderr.contains(
                    "shard 1/2 missing: \(folder.file("shard.1.ndjson")): its run was stopped after \(written) records")
            )
            #expect(
                interrupted.stderr.contains(
                    "  \(process.executableURL?.path ?? "") fetch -q --shard 1/2 -c 4 -i \(folder.urls) -o "
                        + "\(folder.file("shard.1.ndjson")) --stats \(folder.file("shard.1.stats.json"))"))
        }
    }

    @Test func shardsOfAnotherSplitOrInputAreRefused() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: self.urls(server, count: 60))
            defer { folder.remove() }
            try folder.fetchShards(4)
            try folder.fetchShard(1, of: 3, prefix: "three")
            let mixed = try folder.merge(folder.shards(4) + [folder.file("three.1.ndjson")])
            #expect(mixed.status == 2)
            #expect(mixed.stdout.isEmpty, "nothing is written before the check")
            #expect(mixed.stderr.contains("not shards of one split of one input"))
            #expect(mixed.stderr.contains("3 shards of \(folder.urls) (61 URL lines"))

            // The same N over another list: the digest tells them apart.
            try Data((self.urls(server, count: 61).joined(separator: "\n") + "\n").utf8)
                .write(to: URL(fileURLWithPath: folder.urls))
            try folder.fetchShard(3, of: 4, prefix: "longer")
            let other = try folder.merge(folder.shards(3) + [folder.file("longer.3.ndjson")])
            #expect(other.status == 2)
            #expect(other.stderr.contains("not shards of one split of one input"))
        }
    }

    @Test func duplicatesAreKeptOnceWhenTheyAgreeAndRefusedWhenTheyDiffer() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: self.urls(server, count: 60))
            defer { folder.remove() }
            let whole = try folder.whole()
            try folder.fetchShards(3)
            // Shard 1 fetched again into another file: other times, the same results.
            try folder.fetchShard(1, of: 3, prefix: "again")
            let twice = try folder.merge(
                folder.shards(3) + [folder.file("again.1.ndjson"), "-o", folder.file("all.ndjson")])
            let again = try folder.lines(of: "again.1.ndjson").count
            #expect(twice.status == 0, "\(twice.stderr)")
            #expect(twice.stderr.contains("\(again) duplicate records left out"))
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)

            let changed = try folder.lines(of: "again.1.ndjson").enumerated().map { number, line in
                number == 2 ? line.replacingOccurrences(of: "\"status\":200", with: "\"status\":203") : line
            }
            try Data((changed.joined(separator: "\n") + "\n").utf8)
                .write(to: URL(fileURLWithPath: folder.file("again.1.ndjson")))
            let conflicting = try folder.merge(
                folder.shards(3) + [folder.file("again.1.ndjson"), "-o", folder.file("all.ndjson")])
            #expect(conflicting.status == 2)
            let index = try #require(ShardFolder.index(of: changed[2]))
            #expect(conflicting.stderr.contains("index \(index) has two different records"))
            // The complete merge from before is left as it was.
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)
        }
    }

    @Test func completionOrderShardsAreSortedBeforeMerging() async throws {
        try await TestHTTPServer.with { server in
            // Early URLs are slow, so with 16 in flight later ones finish first.
            let lines = (0..<96).map { "\(server.baseURL)/delay?ms=\($0 % 8 == 0 ? 60 : 1)&i=\($0)" }
            let folder = try ShardFolder(lines: lines)
            defer { folder.remove() }
            let whole = try folder.whole()
            try folder.fetchShards(2, ["--order", "completion", "-c", "16"])
            let order = try folder.lines(of: "shard.0.ndjson").compactMap { ShardFolder.index(of: $0) }
            #expect(order != order.sorted(), "the shard is in completion order")
            let merged = try folder.merge(folder.shards(2) + ["-o", folder.file("all.ndjson")])
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr.contains("sorted by index first"))
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)

            // Without stats, an unsorted file is noticed by reading it.
            try FileManager.default.removeItem(atPath: folder.file("shard.0.stats.json"))
            try FileManager.default.removeItem(atPath: folder.file("shard.1.stats.json"))
            let bare = try folder.merge(folder.shards(2) + ["-o", folder.file("all.ndjson")])
            #expect(bare.status == 0, "\(bare.stderr)")
            #expect(bare.stderr.contains("no stats files"))
            #expect(try ShardFolder.withoutTimes(file: folder.file("all.ndjson")) == whole)
        }
    }

    @Test func emptyShardsMergeAndNeedNoFiles() async throws {
        try await TestHTTPServer.with { server in
            let folder = try ShardFolder(lines: (0..<3).map { "\(server.baseURL)/ok?i=\($0)" })
            defer { folder.remove() }
            let whole = try folder.whole()
            try folder.fetchShards(8)
            let sizes = try folder.shards(8).map {
                try folder.lines(of: URL(fileURLWithPath: $0).lastPathComponent).count
            }
            #expect(sizes.filter { $0 == 0 }.count >= 5)
            let merged = try folder.merge(folder.shards(8))
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(ShardFolder.withoutTimes(merged.stdout) == whole)
            // The empty shards' files left out: nothing is missing, so nothing is asked for.
            let nonEmpty = zip(folder.shards(8), sizes).filter { $0.1 > 0 }.map(\.0)
            let fewer = try folder.merge(nonEmpty)
            #expect(fewer.status == 0, "\(fewer.stderr)")
            #expect(ShardFolder.withoutTimes(fewer.stdout) == whole)

            try Data().write(to: URL(fileURLWithPath: folder.file("nothing.ndjson")))
            let nothing = try folder.merge([folder.file("nothing.ndjson")])
            #expect(nothing.status == 0 && nothing.stdout.isEmpty)
            #expect(nothing.stderr.contains("0 records from 1 file"))
        }
    }

    @Test func unreadableInputExitsTwo() async throws {
        let folder = try ShardFolder(lines: [])
        defer { folder.remove() }
        try Data("{\"index\":0,\"url\":\"x\"}\nhello\n".utf8).write(
            to: URL(fileURLWithPath: folder.file("text.ndjson")))
        let text = try folder.merge([folder.file("text.ndjson")])
        #expect(text.status == 2)
        #expect(text.stderr.contains("record 2 is not a batchfetch record (it starts \"hello\")"))

        let directory = try folder.merge([folder.path])
        #expect(directory.status == 2)
        #expect(directory.stderr.contains("cannot read \(folder.path)"))

        try Data("{\"index\":0,\"url\":\"x\"}\n".utf8).write(to: URL(fileURLWithPath: folder.file("a.ndjson")))
        try Data("{\"shard\":".utf8).write(to: URL(fileURLWithPath: folder.file("a.stats.json")))
        let stats = try folder.merge([folder.file("a.ndjson")])
        #expect(stats.status == 2)
        #expect(stats.stderr.contains("a.stats.json is not a stats file of batchfetch fetch"))

        let usage = try folder.merge([folder.file("a.ndjson"), "-o", folder.file("a.ndjson")])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("is one of the files to merge"))
    }

    /// Renaming a finished merge onto -o suits a regular file only: onto a device such as
    /// /dev/null, a FIFO or a symbolic link it would replace it.
    @Test func anOutputThatIsNotARegularFileIsWrittenInPlace() throws {
        let folder = try ShardFolder(lines: [])
        defer { folder.remove() }
        let records = "{\"index\":0,\"url\":\"a\"}\n{\"index\":1,\"url\":\"b\"}\n"
        try Data(records.utf8).write(to: URL(fileURLWithPath: folder.file("a.ndjson")))

        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat \(fifo) > \(folder.file("from-fifo"))"]
        try reader.run()
        let throughFIFO = try folder.merge(["-q", folder.file("a.ndjson"), "-o", fifo])
        reader.waitUntilExit()
        #expect(throughFIFO.status == 0, "\(throughFIFO.stderr)")
        #expect(try String(contentsOfFile: folder.file("from-fifo"), encoding: .utf8) == records)
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "still a FIFO")

        let link = folder.file("link.ndjson")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.file("target.ndjson"))
        let throughLink = try folder.merge(["-q", folder.file("a.ndjson"), "-o", link])
        #expect(throughLink.status == 0, "\(throughLink.stderr)")
        #expect(try String(contentsOfFile: folder.file("target.ndjson"), encoding: .utf8) == records)
        #expect(lstat(link, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK, "still a link")
    }

    @Test func withoutStatsOnlyIndicesAreChecked() async throws {
        let folder = try ShardFolder(lines: [])
        defer { folder.remove() }
        let record = { (index: Int) in "{\"index\":\(index),\"url\":\"http://h/\(index)\",\"status\":200}\n" }
        try Data(([0, 2, 3, 7].map(record).joined()).utf8).write(to: URL(fileURLWithPath: folder.file("a.ndjson")))
        try Data(([1, 4].map(record).joined()).utf8).write(to: URL(fileURLWithPath: folder.file("b.ndjson")))
        let merged = try folder.merge([folder.file("a.ndjson"), folder.file("b.ndjson")])
        #expect(merged.status == 1)
        #expect(merged.stdout.split(separator: "\n").compactMap { ShardFolder.index(of: $0) } == [0, 1, 2, 3, 4, 7])
        #expect(merged.stderr.contains("6 records from 2 files, 2 missing below index 7"))
        #expect(merged.stderr.contains("missing indices: 5-6"))
        #expect(merged.stderr.contains("checked the indices only"))
    }
}

/// A folder with a URL list, the shards' files and one whole run to compare with.
private struct ShardFolder {
    let path: String
    let urls: String

    init(lines: [String]) throws {
        self.path = FileManager.default.temporaryDirectory.appendingPathComponent("bf-merge-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        self.urls = self.path + "/urls.txt"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: self.urls))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: self.path)
    }

    func file(_ name: String) -> String { self.path + "/" + name }

    func lines(of name: String) throws -> [String] {
        try String(contentsOfFile: self.file(name), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// `fetch --shard k/count` into PREFIX.k.ndjson with PREFIX.k.stats.json.
    func fetchShard(_ k: Int, of count: Int, _ extra: [String] = [], prefix: String = "shard") throws {
        _ = try Executable("batchfetch").run(
            [
                "fetch", "-q", "--shard", "\(k)/\(count)", "-i", self.urls, "-o", self.file("\(prefix).\(k).ndjson"),
                "--stats", self.file("\(prefix).\(k).stats.json"),
            ] + extra)
    }

    func fetchShards(_ count: Int, _ extra: [String] = []) throws {
        for k in 0..<count {
            try self.fetchShard(k, of: count, extra)
        }
    }

    func shards(_ count: Int, prefix: String = "shard") -> [String] {
        (0..<count).map { self.file("\(prefix).\($0).ndjson") }
    }

    /// One process fetching everything, times left out: what a merge must reproduce.
    func whole(_ extra: [String] = []) throws -> String {
        _ = try Executable("batchfetch").run(["fetch", "-q", "-i", self.urls, "-o", self.file("whole.ndjson")] + extra)
        return try Self.withoutTimes(file: self.file("whole.ndjson"))
    }

    func merge(_ arguments: [String]) throws -> Executable.Output {
        try Executable("batchfetch").run(["merge"] + arguments)
    }

    /// Records with their `time_ms` and `total_ms` values left out, the fields two runs of a URL
    /// differ in.
    static func withoutTimes(_ text: String) -> String {
        text.replacingOccurrences(of: #""(time|total)_ms":[0-9.]+"#, with: "\"$1_ms\":_", options: .regularExpression)
    }

    static func withoutTimes(file path: String) throws -> String {
        Self.withoutTimes(try String(contentsOfFile: path, encoding: .utf8))
    }

    static func index(of record: some StringProtocol) -> Int? {
        guard record.hasPrefix("{\"index\":") else {
            return nil
        }
        return Int(record.dropFirst("{\"index\":".count).prefix { $0.isNumber })
    }

    /// Runs a command line with /bin/sh and returns its exit status.
    static func shell(_ command: String) throws -> Int32 {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", command]
        try shell.run()
        shell.waitUntilExit()
        return shell.terminationStatus
    }
}
