import Foundation
import TestSupport
import Testing

@testable import BatchFetchWARC

/// Files written by ``WARCWriter`` and read back by warcio, cdxj-indexer and Python's zlib
/// (scripts/warc-check): the records must parse, their digests verify, their bytes be the ones
/// written, and each be a gzip member of its own.
struct WARCWriterTests {
    /// A gzip body (`hello, archive` gzip-compressed by Python: header, deflate, CRC, size), stored
    /// as sent so the payload digest is that of the gzip bytes.
    static let gzipBody: [UInt8] = [
        0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xFF, 0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0xD7, 0x51, 0x48,
        0x2C, 0x4A, 0xCE, 0xC8, 0x2C, 0x4B, 0x05, 0x00, 0x1D, 0x6A, 0xBA, 0xFF, 0x0E, 0x00, 0x00, 0x00,
    ]

    /// The records of one run: warcinfo, then a request and response pair (gzip body, a header
    /// with bytes that are not UTF-8, a `Transfer-Encoding` field), then a plain response.
    static func records(digest: WARCDigest) throws -> [WARCRecord] {
        let date = WARCDate(seconds: 1_795_946_400, microseconds: 123_456)
        let info = try WARCRecord.warcinfo(
            date: date,
            filename: "run.warc.gz",
            software: "batchfetch test",
            fields: [WARCField("command", "fetch --warc run"), WARCField("robots", "obey")],
            digest: digest
        )
        let responseHeaders: [UInt8] =
            Array("Content-Type: text/plain; charset=utf-8\r\nContent-Encoding: gzip\r\n".utf8)
            + Array("Transfer-Encoding: chunked\r\nX-Name: ".utf8) + [0x63, 0x61, 0x66, 0xE9, 0xFE] + [0x0D, 0x0A]
            + Array("Set-Cookie: a=1\r\nSet-Cookie: b=2\r\n".utf8)
        let response = try WARCRecord.response(
            targetURI: "http://127.0.0.1:8080/doc?id=1",
            date: date,
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
            headerBytes: responseHeaders,
            body: Self.gzipBody,
            options: .init(ipAddress: "127.0.0.1", digest: digest)
        )
        let request = try WARCRecord.request(
            targetURI: "http://127.0.0.1:8080/doc?id=1",
            date: date,
            method: "GET",
            target: "/doc?id=1",
            headerBytes: Array("Host: 127.0.0.1:8080\r\nAccept-Encoding: gzip\r\nUser-Agent: batchfetch\r\n".utf8),
            options: .init(concurrentTo: response.id, ipAddress: "127.0.0.1", digest: digest)
        )
        let plain = try WARCRecord.response(
            targetURI: "https://www.example.com/Page/",
            date: WARCDate(seconds: 1_795_946_401),
            statusLine: Array("HTTP/1.1 404 Not Found".utf8),
            headerBytes: Array("Content-Type: text/html\r\nContent-Length: 9\r\n".utf8),
            body: Array("not found".utf8),
            options: .init(protocols: ["h2", "tls/1.3"], truncated: .length, digest: digest)
        )
        return [info, request, response, plain]
    }

    static func write(_ records: [WARCRecord], to path: String) throws -> [WARCWriter.Placement] {
        let writer = try WARCWriter(path: path)
        #expect(FileManager.default.fileExists(atPath: path + ".open"))
        #expect(!FileManager.default.fileExists(atPath: path))
        let placements = try records.map { try writer.write($0) }
        try writer.close()
        #expect(!FileManager.default.fileExists(atPath: path + ".open"))
        return placements
    }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warc-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(arguments: [WARCDigest.sha1, .sha256])
    func gzipFileReadsBackInWarcioWithEveryDigestVerifiedAndEveryByteAsWritten(digest: WARCDigest) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("run.warc.gz").path
        let records = try Self.records(digest: digest)
        let placements = try Self.write(records, to: path)
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0, "\(report.check.output)")
        #expect(report.check.output.components(separatedBy: "digest pass").count - 1 == records.count)
        #expect(!report.check.output.contains("fail"))
        #expect(report.iterator_error == nil)
        // One gzip member per record, each inflating to exactly the record's bytes.
        #expect(report.partial_tail == 0)
        #expect(report.members.count == records.count)
        for (member, (record, placement)) in zip(report.members, zip(records, placements)) {
            #expect([UInt8](base64: member.data) == record.serialized)
            #expect(member.offset == placement.offset && member.length == placement.length)
        }
        #expect(report.records.map(\.offset) == placements.map(\.offset))
        #expect(report.records.map(\.length) == placements.map(\.length))
        Self.expectParsed(report, records)
        // cdxj-indexer's lines for the responses are ours, character for character.
        let ours = zip(records, placements).compactMap {
            CDXJLine(record: $0, placement: $1, filename: "run.warc.gz")?.text
        }
        #expect(ours.count == 2)
        #expect(report.cdxj.filter { !$0.contains("\"method\"") } == ours)
    }

    @Test func uncompressedFileIsTheRecordsOneAfterAnother() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("run.warc").path
        let records = try Self.records(digest: .sha1)
        let placements = try Self.write(records, to: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes == records.flatMap(\.serialized))
        #expect(placements.map(\.length) == records.map { Int64($0.serialized.count) })
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0, "\(report.check.output)")
        #expect(report.check.output.components(separatedBy: "digest pass").count - 1 == records.count)
        #expect(report.members.isEmpty)
        #expect(report.records.map(\.offset) == placements.map(\.offset))
        Self.expectParsed(report, records)
    }

    /// Records written together (one writev, as an exchange's pair is) land end to end, each a
    /// member of its own, stored ones (level 0) and a 5 MB incompressible one included.
    @Test(arguments: ["batch.warc.gz", "batch.warc"])
    func recordsWrittenTogetherReadBackAsIfWrittenOneByOne(name: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<5_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let large = try WARCRecord.response(
            targetURI: "http://127.0.0.1/large", date: WARCDate(seconds: 1_795_946_402),
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
            headerBytes: Array("Content-Type: application/octet-stream\r\n".utf8), body: noise)
        let records = try Self.records(digest: .sha1) + [large]
        let writer = try WARCWriter(path: path)
        let first = try writer.write(records[0])
        let rest = try writer.write([(records[1], true), (records[2], false), (records[3], true), (records[4], false)])
        try writer.close()
        let placements = [first] + rest
        #expect(placements.count == records.count)
        for (earlier, later) in zip(placements, placements.dropFirst()) {
            #expect(later.offset == earlier.offset + earlier.length)
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64
        #expect(size == placements.last.map { $0.offset + $0.length })
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0, "\(report.check.output)")
        #expect(report.check.output.components(separatedBy: "digest pass").count - 1 == records.count)
        #expect(report.records.map(\.offset) == placements.map(\.offset))
        if name.hasSuffix(".gz") {
            #expect(report.members.count == records.count)
            for (member, record) in zip(report.members, records) {
                #expect([UInt8](base64: member.data) == record.serialized)
            }
            // Stored members are a little larger than their records; compressed ones smaller.
            #expect(placements[2].length > records[2].serialized.count)
            #expect(placements[4].length > records[4].serialized.count)
            #expect(placements[1].length < records[1].serialized.count)
        }
    }

    @Test func aCutOffLastGzipMemberLosesOnlyThatRecord() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("whole.warc.gz").path
        let records = try Self.records(digest: .sha1)
        let placements = try Self.write(records, to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let last = placements[placements.count - 1]
        let cut = folder.appendingPathComponent("cut.warc.gz")
        try bytes.prefix(Int(last.offset + last.length / 2)).write(to: cut)
        guard let report = try OutsideReader.report(cut.path) else {
            return
        }
        #expect(report.members.count == records.count - 1)
        #expect(report.partial_tail == Int(last.length / 2))
        #expect(report.records.map(\.id) == records.dropLast().map(\.id))
        for (member, record) in zip(report.members, records) {
            #expect([UInt8](base64: member.data) == record.serialized)
        }
    }

    @Test func revisitsCarryTheirProfileAndIndexAsPywbIndexesThem() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("revisits.warc.gz").path
        let first = try Self.records(digest: .sha1)[3]
        let head = Array("Content-Type: text/html\r\nContent-Length: 9\r\n".utf8)
        let same = try WARCRecord.revisit(
            targetURI: "https://www.example.com/Page/",
            date: WARCDate(seconds: 1_795_946_500),
            statusLine: Array("HTTP/1.1 404 Not Found".utf8),
            headerBytes: head,
            profile: .identicalPayloadDigest(
                payloadDigest: first.payloadDigest ?? "",
                refersTo: first.id,
                refersToTargetURI: "https://www.example.com/Page/",
                refersToDate: first.date
            )
        )
        let notModified = try WARCRecord.revisit(
            targetURI: "https://www.example.com/Page/",
            date: WARCDate(seconds: 1_795_946_600),
            statusLine: Array("HTTP/1.1 304 Not Modified".utf8),
            headerBytes: Array("ETag: \"x\"\r\n".utf8),
            profile: .serverNotModified(refersTo: first.id, refersToTargetURI: nil, refersToDate: first.date)
        )
        let records = [first, same, notModified]
        let placements = try Self.write(records, to: path)
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.check.status == 0, "\(report.check.output)")
        #expect(report.iterator_error == nil)
        #expect(report.records.map(\.type) == ["response", "revisit", "revisit"])
        for (parsed, record) in zip(report.records, records) {
            #expect(parsed.headers == record.fields.map { [$0.name, $0.value] })
        }
        #expect(same.field("WARC-Payload-Digest") == first.payloadDigest)
        #expect(report.records.map(\.http_status) == ["404", "404", "304"])
        let ours = zip(records, placements).compactMap {
            CDXJLine(record: $0, placement: $1, filename: "revisits.warc.gz")?.text
        }
        #expect(report.cdxj == ours)
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.warc.gz").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: WARCError.self) { _ = try WARCWriter(path: path) }
        let writer = try WARCWriter(path: folder.appendingPathComponent("b.warc").path)
        #expect(throws: WARCError.self) { _ = try WARCWriter(path: folder.appendingPathComponent("b.warc").path) }
        try writer.close()
        try writer.close()
        #expect(throws: WARCError.self) { try writer.write(Self.records(digest: .sha1)[0]) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
    }

    /// What warcio parsed: types, IDs and fields as written, the HTTP heads, the stored payloads.
    static func expectParsed(_ report: OutsideReader.Report, _ records: [WARCRecord]) {
        #expect(report.records.map(\.type) == records.map(\.kind.rawValue))
        #expect(report.records.map(\.id) == records.map(\.id))
        for (parsed, record) in zip(report.records, records) {
            #expect(parsed.headers == record.fields.map { [$0.name, $0.value] })
        }
        let request = report.records[1]
        let response = report.records[2]
        #expect(request.headers.contains(["WARC-Concurrent-To", records[2].id]))
        #expect(response.http_status == "200")
        let names = response.http_headers?.map { $0[0] } ?? []
        #expect(
            names == [
                "Content-Type", "Content-Encoding", "X-Crawler-Transfer-Encoding", "X-Name", "Set-Cookie", "Set-Cookie",
            ])
        #expect([UInt8](base64: response.raw_payload) == Self.gzipBody)
        #expect(response.payload.map { [UInt8](base64: $0) } == Array("hello, archive".utf8))
        #expect(report.records[3].http_status == "404")
        #expect([UInt8](base64: report.records[3].raw_payload) == Array("not found".utf8))
    }
}
