import BatchFetch
import BatchFetchWARC
import Foundation
import TestSupport
import Testing

/// `WARCRecovery.finish`: what a killed run left open becomes a finished file of whole records,
/// with the index the run would have written.
@Suite struct WARCRecoveryTests {
    /// Writes `count` exchanges to `path` and leaves the file open, as a killed run does; returns
    /// the `.open` file's path.
    static func leaveOpen(_ path: String, exchanges count: Int) throws -> String {
        let archive = try WARCArchive(path: path, software: "batchfetch test", indexes: true)
        for number in 0..<count {
            let body = Data("{\"n\":\(number),\"pad\":\"\(String(repeating: "x", count: number * 37 % 900))\"}".utf8)
            _ = try archive.archive([
                Exchange(
                    url: "http://127.0.0.1:8080/item?n=\(number)", date: Date(),
                    requestHead: Data("GET /item?n=\(number) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8),
                    responseHead: Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n".utf8),
                    body: body, address: "127.0.0.1")
            ])
        }
        return path + ".open"
    }

    static func size(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// A record cut short at the end is dropped; every whole one is kept, the file renamed, and its
    /// index is cdxj-indexer's; warcio reads the file without complaint.
    @Test(arguments: ["cut.warc.gz", "cut.warc"])
    func aCutRecordIsDroppedAndTheRestKept(name: String) throws {
        let directory = try ScratchDirectory("warc-recovery")
        let path = directory.path(name)
        let open = try Self.leaveOpen(path, exchanges: 40)
        let whole = try Self.size(open)
        // Cut the last record (the 40th exchange's request) short.
        #expect(truncate(open, off_t(whole - 9)) == 0)
        let outcome = try WARCRecovery.finish(openPath: open, indexes: true)
        #expect(outcome.path == path)
        #expect(outcome.records == 1 + 2 * 40 - 1)
        #expect(outcome.cutBytes > 0 && outcome.cutBytes < whole)
        #expect(!FileManager.default.fileExists(atPath: open))
        #expect(try Self.size(path) == whole - 9 - outcome.cutBytes)
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0, "warcio check: \(report.check.output)")
        #expect(report.partial_tail == 0)
        #expect(report.records.count == outcome.records)
        let index = try String(contentsOfFile: WARCArchive.indexPath(for: path), encoding: .utf8)
        let lines = index.split(separator: "\n").map(String.init)
        #expect(lines.count == 40)
        // An uncompressed record's length counts its closing CRLF CRLF, as the writer places it
        // (cdxj-indexer's stops before them).
        let theirs = report.cdxj.filter { !$0.isEmpty }.sorted().map { line in
            name.hasSuffix(".gz") ? line : Self.adding(4, toLengthIn: line)
        }
        #expect(lines == theirs)
    }

    /// `line` with `extra` added to its `"length"`.
    static func adding(_ extra: Int, toLengthIn line: String) -> String {
        guard let start = line.range(of: "\"length\": \""),
            let end = line[start.upperBound...].firstIndex(of: "\""),
            let length = Int(line[start.upperBound..<end])
        else {
            return line
        }
        return line.replacingCharacters(in: start.upperBound..<end, with: String(length + extra))
    }

    /// A whole file loses nothing; bytes after its last record that are no record are cut.
    @Test func aWholeFileKeepsEveryRecordAndJunkAfterItIsCut() throws {
        let directory = try ScratchDirectory("warc-recovery-whole")
        let path = directory.path("whole.warc.gz")
        let open = try Self.leaveOpen(path, exchanges: 5)
        let whole = try Self.size(open)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: open))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF, 0x01, 0x02]))
        try handle.close()
        let outcome = try WARCRecovery.finish(openPath: open, indexes: false)
        #expect(outcome.records == 11 && outcome.cutBytes == 12)
        #expect(try Self.size(path) == whole)
        #expect(!FileManager.default.fileExists(atPath: WARCArchive.indexPath(for: path)))
    }

    /// A finished file of the same name is never replaced, and a name without `.open` is refused.
    @Test func itNeverReplacesAFinishedFile() throws {
        let directory = try ScratchDirectory("warc-recovery-taken")
        let path = directory.path("taken.warc.gz")
        let open = try Self.leaveOpen(path, exchanges: 2)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("mine".utf8)))
        #expect(throws: WARCError.self) { try WARCRecovery.finish(openPath: open, indexes: false) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine")
        #expect(FileManager.default.fileExists(atPath: open))
        #expect(throws: WARCError.self) { try WARCRecovery.finish(openPath: path, indexes: false) }
    }

    /// The series: the first free name past every file there, finished or open.
    @Test func theSeriesContinuesAfterItsLastFile() throws {
        let directory = try ScratchDirectory("warc-series")
        let path = directory.path("s.warc.gz")
        #expect(WARCArchive.firstFreeNumber(in: path) == 0)
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(FileManager.default.createFile(atPath: directory.path("s-00001.warc.gz.open"), contents: Data()))
        #expect(WARCArchive.firstFreeNumber(in: path) == 2)
        #expect(WARCArchive.openFiles(in: path) == [directory.path("s-00001.warc.gz.open")])
    }

    /// A rotating archive that starts later in its series passes over names already there.
    @Test func rotationPassesOverFilesAlreadyThere() throws {
        let directory = try ScratchDirectory("warc-series-rotation")
        let path = directory.path("r.warc.gz")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("earlier".utf8)))
        #expect(FileManager.default.createFile(atPath: directory.path("r-00002.warc.gz"), contents: Data("x".utf8)))
        let archive = try WARCArchive(
            path: path, software: "batchfetch test", maxSize: 1, firstNumber: WARCArchive.firstFreeNumber(in: path))
        for number in 0..<2 {
            _ = try archive.archive([
                Exchange(
                    url: "http://127.0.0.1:8080/r?n=\(number)", date: Date(),
                    requestHead: Data("GET /r HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8),
                    responseHead: Data("HTTP/1.1 200 OK\r\n\r\n".utf8), body: Data("\(number)".utf8))
            ])
        }
        try archive.close()
        // Each file is full once its warcinfo is in, so every exchange starts a new one.
        #expect(archive.closedPaths == ["r-00001", "r-00003", "r-00004"].map { directory.path($0 + ".warc.gz") })
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier")
        #expect(try String(contentsOfFile: directory.path("r-00002.warc.gz"), encoding: .utf8) == "x")
    }

    @Test func warcDatesReadBackToTheInstantWritten() {
        let date = WARCDate(seconds: 1_796_000_123, microseconds: 45_600)
        #expect(WARCDate(warcText: date.warcText) == date)
        #expect(WARCDate(warcText: "2026-11-29T10:00:00Z") == WARCDate(timestamp14: "20261129100000"))
        #expect(WARCDate(warcText: "2026-11-29T10:00:00.5Z")?.microseconds == 500_000)
        #expect(WARCDate(warcText: "2026-11-29 10:00") == nil)
    }
}
