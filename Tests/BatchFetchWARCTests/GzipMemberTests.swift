import Foundation
import TestSupport
import Testing

@testable import BatchFetchWARC

/// igzip's level 0 with a Huffman code fitted per kind of record (``GzipMember``): past the
/// records it learns from, and past a refit, every member still inflates (Python's zlib, warcio)
/// to exactly its record, bytes the learning never saw included, and the file shrinks.
struct GzipMemberTests {
    /// `count` request and response pairs, JSON-like bodies with a varying share of every byte
    /// value (the later ones hold bytes the first 32 of each kind did not).
    static func exchanges(_ count: Int) throws -> [(WARCRecord, WARCRecord)] {
        let words = ["strDrink", "Margarita", "strGlass", "Cocktail glass", "null", "strIngredient", "Lime juice"]
        return try (0..<count).map { index in
            var body = Array("{\"drinks\":[{\"idDrink\":\"\(11_000 + index)\"".utf8)
            for word in 0..<(40 + index % 90) {
                body += Array(
                    ",\"\(words[(word * 7 + index) % words.count])\(word)\":\"\(words[word % words.count])\"".utf8)
            }
            if index >= 64 {
                body += (0..<(index % 7 * 40)).map { UInt8(truncatingIfNeeded: $0 * 37 + index) }
            }
            body += Array("}]}".utf8)
            let url = "http://127.0.0.1:8080/api/json/v1/1/lookup.php?i=\(11_000 + index)"
            let date = WARCDate(seconds: 1_795_946_400 + Int64(index))
            let response = try WARCRecord.response(
                targetURI: url, date: date, statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
                headerBytes: Array("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8),
                body: body, options: .init(ipAddress: "127.0.0.1"))
            let request = try WARCRecord.request(
                targetURI: url, date: date, method: "GET", target: "/api/json/v1/1/lookup.php?i=\(11_000 + index)",
                headerBytes: Array("Host: 127.0.0.1:8080\r\nAccept: */*\r\nUser-Agent: batchfetch\r\n".utf8),
                options: .init(concurrentTo: response.id, ipAddress: "127.0.0.1"))
            return (response, request)
        }
    }

    @Test func recordsPastLearningAndRefittingInflateToThemselvesAndShrink() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-member-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("many.warc.gz").path
        // 32 learnt, then a sample in 16 and a refit every 64 samples: 1,100 pairs refit once.
        let pairs = try Self.exchanges(1_100)
        let writer = try WARCWriter(path: path)
        var placements: [WARCWriter.Placement] = []
        for (response, request) in pairs {
            placements += try writer.write([(response, true), (request, true)])
        }
        try writer.close()
        let records = pairs.flatMap { [$0.0, $0.1] }
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0)
        #expect(report.partial_tail == 0)
        #expect(report.members.count == records.count)
        var mismatched = 0
        for (member, record) in zip(report.members, records) where [UInt8](base64: member.data) != record.serialized {
            mismatched += 1
        }
        #expect(mismatched == 0)
        #expect(report.members.map(\.offset) == placements.map(\.offset))
        // Past the learning, members are well under their records' size, requests included.
        let late = zip(placements, records).suffix(400)
        let written = late.reduce(0) { $0 + $1.0.length }
        let serialized = late.reduce(0) { $0 + Int64($1.1.serialized.count) }
        #expect(Double(written) < 0.7 * Double(serialized), "\(written) of \(serialized) bytes")
        let requests = late.filter { $0.1.kind == .request }
        let requestBytes = requests.reduce(0) { $0 + $1.0.length }
        let requestSerialized = requests.reduce(0) { $0 + Int64($1.1.serialized.count) }
        #expect(Double(requestBytes) < 0.9 * Double(requestSerialized), "\(requestBytes) of \(requestSerialized)")
    }

    /// After its 32 learnt records a kind goes at level 0 with its fitted code, and such members,
    /// with bytes the learning never saw, inflate to their records.
    @Test func aFittedCodeEncodesBytesItNeverSaw() throws {
        let gzip = try GzipMember(level: nil)
        let pairs = try Self.exchanges(40)
        for (response, _) in pairs.prefix(32) {
            _ = try gzip.compress([response.serialized[...]], kind: .response)
        }
        #expect(gzip.isFitted(.response))
        #expect(!gzip.isFitted(.request))
        let unseen = Array(0...255 as ClosedRange<UInt8>) + Array(pairs[39].0.serialized)
        for record in [pairs[33].0.serialized, unseen] {
            let member = try gzip.compress([record.prefix(100), record.dropFirst(100)], kind: .response)
            #expect(try Self.pythonGunzips(member, to: record))
        }
    }

    /// A stored member (a body compressed already) of any size, empty included, is a gzip member
    /// Python's zlib inflates to exactly its pieces.
    @Test(arguments: [0, 1, 65_535, 65_536, 200_000])
    func storedMembersInflateToTheirPieces(size: Int) throws {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let pieces = [bytes.prefix(size / 3), bytes.dropFirst(size / 3)]
        let member = GzipMember.stored(pieces.map { $0[...] })
        #expect(member.count == 18 + size + 5 * max(1, (size + 65_534) / 65_535))
        #expect(try Self.pythonGunzips(member, to: bytes))
    }

    /// Whether Python's zlib inflates the gzip member `member` to `bytes`.
    static func pythonGunzips(_ member: [UInt8], to bytes: [UInt8]) throws -> Bool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("member-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let memberPath = folder.appendingPathComponent("member.gz").path
        let bytesPath = folder.appendingPathComponent("bytes").path
        try Data(member).write(to: URL(fileURLWithPath: memberPath))
        try Data(bytes).write(to: URL(fileURLWithPath: bytesPath))
        let script =
            "import gzip,sys; a=gzip.decompress(open(sys.argv[1],'rb').read()); print(a==open(sys.argv[2],'rb').read())"
        let run = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, memberPath, bytesPath])
        #expect(run.status == 0, "\(run.summary)")
        return run.stdout == "True\n"
    }
}
