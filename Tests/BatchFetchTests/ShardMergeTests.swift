import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchMerge

#if canImport(Glibc)
    import Glibc
#endif

/// The merge's parts without a network: sorting in bounded memory, streaming long records,
/// re-run commands, digests, redaction and duplicate comparison.
struct ShardMergeTests {
    private static func record(_ index: Int, body: String = "{\"a\":1}", time: String = "1.000") -> String {
        "{\"index\":\(index),\"url\":\"http://h/\(index)\",\"status\":200,\"ok\":true,\"attempts\":1,\"bytes\":7,"
            + "\"time_ms\":\(time),\"content_type\":\"application/json\",\"body\":\(body),\"error\":null}\n"
    }

    /// A temporary file holding `text`, removed by `body`'s end.
    private static func withFile<T>(_ text: String, _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bf-merge-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    /// Merges `inputs` and returns the merged text and the outcome.
    private static func merge(_ inputs: [RecordMerger.Input], total: Int? = nil) throws -> (
        String, RecordMerger.Outcome
    ) {
        let merged = Merged()
        let outcome = try RecordMerger(
            inputs: inputs,
            sink: { bytes throws(MergeError) in
                merged.bytes += bytes
                bytes.removeAll(keepingCapacity: true)
            }, total: total
        ).run()
        return (String(decoding: merged.bytes, as: UTF8.self), outcome)
    }

    private final class Merged: @unchecked Sendable {
        var bytes: [UInt8] = []
    }

    @Test func aShuffledFileIsSortedInRunsOfBoundedSize() throws {
        var generator = SeededGenerator(seed: 7)
        let indices = Array(0..<2000).shuffled(using: &generator)
        try Self.withFile(indices.map { Self.record($0) }.joined()) { path in
            let sorter = RecordSorter(
                temporaryDirectory: NSTemporaryDirectory(), chunkBytes: 16 << 10, bufferSize: 4096)
            #expect(try sorter.isSorted(path: path) == false)
            let runs = try sorter.sortedRuns(path: path, origin: 0)
            #expect(runs.sources.count > 10, "16 KiB chunks of a \(indices.count)-record file")
            #expect(runs.cutOff.present == false)
            let (text, outcome) = try Self.merge(runs.sources, total: 2000)
            #expect(text == (0..<2000).map { Self.record($0) }.joined())
            #expect(outcome.records == 2000 && outcome.missing == 0 && outcome.recordsByOrigin[0] == 2000)
        }
    }

    @Test func recordsLongerThanEveryBufferPassThroughWhole() throws {
        let long = "{\"text\":\"" + String(repeating: "x", count: 300_000) + "\"}"
        let text = Self.record(0) + Self.record(1, body: long) + Self.record(3)
        try Self.withFile(text) { path in
            // Read through a small buffer (as a pipe is), and mapped (as a file is).
            var (merged, outcome) = try Self.merge([
                .run(descriptor: open(path, O_RDONLY), name: path, origin: 0, bufferSize: 1024)
            ])
            #expect(merged == text)
            #expect(outcome.gaps == [2...2])
            (merged, outcome) = try Self.merge([.file(path: path, origin: 0, bufferSize: 1024)])
            #expect(merged == text)
            #expect(outcome.gaps == [2...2])
            let runs = try RecordSorter(temporaryDirectory: NSTemporaryDirectory(), chunkBytes: 4096, bufferSize: 1024)
                .sortedRuns(path: path, origin: 0)
            #expect(try Self.merge(runs.sources).0 == text)
        }
    }

    @Test func aCutOffLastRecordIsLeftOutAndNamed() throws {
        let text = Self.record(0) + Self.record(1) + String(Self.record(2).dropLast(30))
        try Self.withFile(text) { path in
            let (merged, outcome) = try Self.merge([.file(path: path, origin: 0, bufferSize: 4096)], total: 3)
            #expect(merged == Self.record(0) + Self.record(1))
            #expect(outcome.cutOff[0] == .some(2))
            #expect(outcome.missing == 1 && outcome.gaps == [2...2])
            let runs = try RecordSorter(temporaryDirectory: NSTemporaryDirectory()).sortedRuns(path: path, origin: 0)
            #expect(runs.cutOff.present && runs.cutOff.index == 2)
        }
    }

    @Test func duplicatesDifferingOnlyInHowTheyWereTransferredAgree() throws {
        let first = Self.record(4)
        let retried = Self.record(4, time: "250.125").replacingOccurrences(of: "\"attempts\":1", with: "\"attempts\":3")
        let copy = first.replacingOccurrences(of: "\"attempts\":1", with: "\"shared_with\":12,\"attempts\":0")
        let timed = first.replacingOccurrences(of: "\"time_ms\":1.000", with: "\"time_ms\":1.000,\"total_ms\":9.5")
        let retimed = first.replacingOccurrences(of: "\"time_ms\":1.000", with: "\"time_ms\":2.000,\"total_ms\":null")
        let other = Self.record(4, body: "{\"a\":2}")
        func same(_ a: String, _ b: String) -> Bool {
            RecordComparison.sameResult(Array(a.utf8), Array(b.utf8))
        }
        #expect(same(first, retried))
        #expect(same(copy, retried) && same(first, copy))
        #expect(!same(copy, other))
        #expect(same(timed, retimed) && !same(timed, retimed.replacingOccurrences(of: "h/4", with: "h/5")))
        #expect(!same(first, other))
        #expect(!same(first, first.replacingOccurrences(of: "http://h/4", with: "http://h/5")))
    }

    @Test func aSiblingsCommandIsRenumberedForTheMissingShard() {
        let sibling = ShardManifest(
            index: 5, count: 8, input: "urls.txt", inputLines: 100, inputDigest: "0011223344556677", lines: 12,
            records: 12, order: "input", complete: true, output: "out/shard.5.ndjson", directory: "/data",
            command: [
                "batchfetch", "fetch", "--shard=5/8", "-i", "urls.txt", "-o", "out/shard.5.ndjson", "--stats",
                "out/shard.5.stats.json", "-H", "X-Team: a b",
            ])
        let known = ShardRerun.Known(manifest: sibling, recordsPath: "/data/out/shard.5.ndjson")
        #expect(
            ShardRerun.command(index: 3, count: 8, own: nil, siblings: [known], currentDirectory: "/data")
                == "batchfetch fetch --shard=3/8 -i urls.txt -o out/shard.3.ndjson --stats out/shard.3.stats.json "
                + "-H 'X-Team: a b'")
        #expect(
            ShardRerun.command(index: 3, count: 8, own: nil, siblings: [known], currentDirectory: "/elsewhere")
                .hasPrefix("cd /data && batchfetch fetch --shard=3/8"))

        // Records redirected from standard output: the redirection is renumbered too.
        var redirected = sibling
        redirected.command = ["batchfetch", "fetch", "--shard", "5/8", "-i", "urls.txt"]
        redirected.output = "/data/part-5.ndjson"
        #expect(
            ShardRerun.command(
                index: 0, count: 8, own: nil, siblings: [.init(manifest: redirected, recordsPath: nil)],
                currentDirectory: "/data") == "batchfetch fetch --shard 0/8 -i urls.txt > /data/part-0.ndjson")

        // An interrupted run is run again as it was.
        var own = sibling
        own.complete = false
        #expect(
            ShardRerun.command(
                index: 5, count: 8, own: .init(manifest: own, recordsPath: nil), siblings: [], currentDirectory: "/data"
            )
            .hasPrefix("batchfetch fetch --shard=5/8 -i urls.txt -o out/shard.5.ndjson"))
    }

    @Test func anInterruptedRunIsOfTheSplitThoughItReadOnlyPartOfTheInput() throws {
        func manifest(_ index: Int, of count: Int, lines: Int, digest: String, complete: Bool) -> ShardManifest {
            ShardManifest(
                index: index, count: count, input: "urls.txt", inputLines: lines, inputDigest: digest, lines: 3,
                records: 3, order: "input", complete: complete, output: nil, directory: "/", command: [])
        }
        func split(_ manifests: [ShardManifest]) throws -> MergeReport.Split? {
            let inputs = manifests.enumerated().map { MergeInput(path: "s\($0.offset)", manifest: $0.element) }
            return try ShardMerge(inputs: inputs, temporaryDirectory: "/tmp", currentDirectory: "/").split()
        }
        let whole = manifest(0, of: 2, lines: 10, digest: "aaaaaaaaaaaaaaaa", complete: true)
        let stopped = manifest(1, of: 2, lines: 4, digest: "bbbbbbbbbbbbbbbb", complete: false)
        #expect(try split([whole, stopped])?.inputLines == 10)
        #expect(try split([stopped])?.inputLines == nil, "no run read the whole input")
        #expect(try split([stopped])?.count == 2)
        #expect(throws: MergeError.self) {
            try split([whole, manifest(1, of: 3, lines: 4, digest: "bbbbbbbbbbbbbbbb", complete: false)])
        }
        #expect(throws: MergeError.self) {
            try split([whole, manifest(1, of: 2, lines: 11, digest: "bbbbbbbbbbbbbbbb", complete: false)])
        }
        #expect(throws: MergeError.self) {
            try split([whole, manifest(1, of: 2, lines: 10, digest: "cccccccccccccccc", complete: true)])
        }
    }

    @Test func fileNamesAreRenumberedOnlyWhenTheShardNumberIsUnambiguous() {
        #expect(ShardRerun.renumbered("run1/shard.1.ndjson", from: 1, to: 7) == "run1/shard.7.ndjson")
        #expect(ShardRerun.renumbered("shard-12-of-16.ndjson", from: 12, to: 3) == "shard-3-of-16.ndjson")
        #expect(ShardRerun.renumbered("s1.shard.1.ndjson", from: 1, to: 7) == nil)
        #expect(ShardRerun.renumbered("all.ndjson", from: 1, to: 7) == nil)
        #expect(ShardRerun.renumbered("shard.11.ndjson", from: 1, to: 7) == nil)
        #expect(ShardRerun.quoted("it's") == #"'it'\''s'"#)
        #expect(ShardRerun.quoted("a/b.c-d") == "a/b.c-d")
    }

    @Test func storedCommandsKeepNoCredentials() {
        let arguments = [
            "batchfetch", "fetch", "-H", "Authorization: Bearer abc", "--header=X-Api-Key: k1", "-HCookie: s=1",
            "-H", "Accept: application/json", "https://user:pass@example.com/x?token=t&page=2", "-i", "urls.txt",
        ]
        let stored = ShardManifest.redacting(arguments: arguments)
        #expect(
            stored == [
                "batchfetch", "fetch", "-H", "Authorization: ***", "--header=X-Api-Key: ***", "-HCookie: ***",
                "-H", "Accept: application/json", "https://user:***@example.com/x?token=***&page=2", "-i", "urls.txt",
            ])
    }

    @Test func storedCommandsKeepNoUserCredentialsOrCookies() {
        let arguments = [
            "batchfetch", "fetch", "-u", "ann:s3cret", "--user=bob:pw", "-ucat:pw2", "-b", "sid=1; k=2", "-b",
            "jar.txt",
            "--cookie=a=b", "-bx=y", "--cookie", "jar2.txt", "--proxy", "http://p:pw@proxy:3128", "-i", "urls.txt",
        ]
        let stored = ShardManifest.redacting(arguments: arguments)
        #expect(
            stored == [
                "batchfetch", "fetch", "-u", "***", "--user=***", "-u***", "-b", "***", "-b", "jar.txt",
                "--cookie=***", "-b***", "--cookie", "jar2.txt", "--proxy", "http://p:***@proxy:3128", "-i",
                "urls.txt",
            ])
        #expect(!stored.joined(separator: " ").contains("s3cret"))
    }

    @Test func theInputDigestIsFNVFoldedInOrder() {
        #expect(InputDigest.hash("a") == 0xaf63_dc4c_8601_ec8c, "FNV-1a 64 of \"a\"")
        func digest(_ lines: [String]) -> String {
            var digest = InputDigest()
            for line in lines {
                digest.add(lineHash: InputDigest.hash(line))
            }
            return digest.hex
        }
        #expect(digest(["a", "b"]) == digest(["a", "b"]))
        #expect(digest(["a", "b"]) != digest(["b", "a"]))
        #expect(digest(["a"]) != digest(["a", "a"]))
        #expect(digest([]).count == 16)
    }
}
