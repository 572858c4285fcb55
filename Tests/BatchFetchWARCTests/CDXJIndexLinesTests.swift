import BatchFetch
import Foundation
import TestSupport
import Testing

@testable import BatchFetchWARC

/// A file's index lines past what is kept in memory: sorted into runs in temporary files and
/// merged when the index is written, the same bytes as sorting them all at once, no run left over.
struct CDXJIndexLinesTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cdxj-runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs of ~30 and ~300 lines (and none: all in memory), over lines that share long prefixes.
    @Test(arguments: [2_000, 20_000, 1 << 22])
    func linesInRunsMergeToTheSortedWhole(runBytes: Int) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SeededGenerator(seed: 29)
        let lines = (0..<2_000).map { index in
            "com,example)/p\(generator.next(50))?i=\(generator.next(1_000)) 2026112\(generator.next(10)) {\"n\": \"\(index)\"}"
        }
        let index = CDXJIndexLines(folder: folder.path, runBytes: runBytes)
        for line in lines {
            try index.append(line)
        }
        let path = folder.appendingPathComponent("run.cdxj").path
        try index.write(to: path)
        let expected = lines.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            .flatMap { $0 + [UInt8(ascii: "\n")] }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["run.cdxj"])
        // Written again after more lines, it holds only those.
        try index.append(lines[0])
        try index.write(to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == lines[0] + "\n")
    }

    /// An archive whose index lines go to runs writes cdxj-indexer's lines: one per response, in
    /// byte order, each at its record's offset.
    @Test func anArchiveIndexInRunsNamesEveryResponseInOrder() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("runs.warc.gz").path
        let archive = try WARCArchive(path: path, software: "batchfetch test", indexes: true, indexRunBytes: 2_000)
        var offsets: [Int64] = []
        for number in 0..<300 {
            let exchange = Exchange(
                url: "http://127.0.0.1:8080/item?id=\((number * 7_919) % 1_000)&n=\(number)", date: Date(),
                requestHead: Data("GET /item HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8),
                responseHead: Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n".utf8),
                body: Data("{\"n\":\(number)}".utf8), address: "127.0.0.1")
            if let location = try archive.archive([exchange]) {
                offsets.append(location.offset)
            }
        }
        try archive.close()
        let text = try String(contentsOfFile: WARCArchive.indexPath(for: path), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 300)
        #expect(lines == lines.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        let indexed = lines.compactMap { line in
            line.firstRange(of: "\"offset\": \"").map { Int64(line[$0.upperBound...].prefix { $0 != "\"" }) ?? -1 }
        }
        #expect(Set(indexed) == Set(offsets))
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: folder.path)) == ["runs.warc.gz", "runs.cdxj"])
        guard let report = try OutsideReader.report(path) else {
            return
        }
        // cdxj-indexer lists the file's records in file order: the same lines, character for character.
        #expect(report.cdxj.count == lines.count)
        #expect(Set(report.cdxj) == Set(lines))
    }
}
