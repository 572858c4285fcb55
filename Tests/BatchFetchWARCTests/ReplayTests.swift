import Foundation
import TestSupport
import Testing

@testable import BatchFetchWARC

/// Files written by ``WARCWriter`` and replayed by pywb (`scripts/warc-check replay`): what a
/// user's wayback serves must be the bytes the origin sent, whatever the body's coding.
struct ReplayTests {
    static let gzipURL = "http://origin.test/gzip"
    static let binaryURL = "http://origin.test/binary?x=1"
    static let chunkedURL = "http://origin.test/chunked"
    static let revisitURL = "http://origin.test/binary-again"
    static let missingURL = "http://origin.test/never-fetched"

    /// Every byte value, twice, then a CR LF and a NUL: a body no text handling leaves alone.
    static let binaryBody: [UInt8] = {
        let values = (0...255).map { UInt8($0) }
        return values + values.reversed() + [0x0D, 0x0A, 0x00]
    }()

    /// A body that is itself valid chunk framing: a reader that de-chunked it again (having seen the
    /// `Transfer-Encoding` field the library renames) would serve `hello`.
    static let chunkedBody = Array("5\r\nhello\r\n0\r\n\r\n".utf8)

    /// A response per body kind and a revisit of the binary one under another URL.
    static func records() throws -> [WARCRecord] {
        let date = WARCDate(seconds: 1_795_946_400, microseconds: 250_000)
        let options = WARCRecord.ExchangeOptions(ipAddress: "127.0.0.1")
        let info = try WARCRecord.warcinfo(date: date, filename: "replay.warc.gz", software: "batchfetch test")
        let gzip = try WARCRecord.response(
            targetURI: Self.gzipURL,
            date: date,
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
            headerBytes: Array(
                "Content-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: \(WARCWriterTests.gzipBody.count)\r\n"
                    .utf8),
            body: WARCWriterTests.gzipBody,
            options: options
        )
        let binary = try WARCRecord.response(
            targetURI: Self.binaryURL,
            date: date,
            statusLine: Array("HTTP/1.1 200 OK".utf8),
            headerBytes: Array(
                "Content-Type: application/octet-stream\r\nContent-Length: \(Self.binaryBody.count)\r\n".utf8),
            body: Self.binaryBody,
            options: options
        )
        let chunked = try WARCRecord.response(
            targetURI: Self.chunkedURL,
            date: date,
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
            headerBytes: Array("Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\nX-Origin: yes\r\n".utf8),
            body: Self.chunkedBody,
            options: options
        )
        let revisit = try WARCRecord.revisit(
            targetURI: Self.revisitURL,
            date: WARCDate(seconds: 1_795_946_460),
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8),
            headerBytes: Array("Content-Type: application/octet-stream\r\nX-Revisit: second\r\n".utf8),
            profile: .identicalPayloadDigest(
                payloadDigest: binary.payloadDigest ?? "",
                refersTo: binary.id,
                refersToTargetURI: Self.binaryURL,
                refersToDate: binary.date
            ),
            options: options
        )
        return [info, gzip, binary, chunked, revisit]
    }

    static func write(_ records: [WARCRecord], to path: String) throws {
        let writer = try WARCWriter(path: path)
        for record in records {
            try writer.write(record)
        }
        try writer.close()
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test(arguments: ["replay.warc.gz", "replay.warc"])
    func pywbServesEveryStoredBodyByteForByte(name: String) throws {
        let folder = try WARCWriterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try Self.write(Self.records(), to: path)
        let urls = [Self.gzipURL, Self.binaryURL, Self.chunkedURL, Self.revisitURL, Self.missingURL]
        guard let answers = try ReplayReader.replay([path], urls: urls) else {
            return
        }
        for answer in answers {
            #expect(answer.error == nil, "\(answer.url): \(answer.error ?? "")")
        }
        let (gzip, binary, chunked, revisit, missing) = (answers[0], answers[1], answers[2], answers[3], answers[4])

        // The gzip body as stored, not inflated: the client said it takes gzip.
        #expect(gzip.status == 200)
        #expect(gzip.bodyBytes == WARCWriterTests.gzipBody)
        #expect(gzip.bodyBytes.prefix(2) == [0x1F, 0x8B])
        #expect(gzip.header("Content-Encoding") == "gzip")
        #expect(gzip.length == WARCWriterTests.gzipBody.count)
        #expect(gzip.sha256 == Self.hex(WARCDigest.sha256.hash(of: WARCWriterTests.gzipBody)))

        #expect(binary.status == 200)
        #expect(binary.bodyBytes == Self.binaryBody)
        #expect(binary.header("Content-Type") == "application/octet-stream")
        #expect(binary.sha256 == Self.hex(WARCDigest.sha256.hash(of: Self.binaryBody)))

        // Served as stored: the renamed field kept pywb from de-chunking the body a second time.
        #expect(chunked.status == 200)
        #expect(chunked.bodyBytes == Self.chunkedBody)
        #expect(chunked.header("X-Crawler-Transfer-Encoding") == "chunked")
        #expect(chunked.header("X-Origin") == "yes")

        // The revisit: its own head, the payload of the record it refers to.
        #expect(revisit.status == 200)
        #expect(revisit.bodyBytes == Self.binaryBody)
        #expect(revisit.header("X-Revisit") == "second")
        #expect(revisit.sha256 == binary.sha256)

        // Nothing archived, nothing served: the answers above come from the file.
        #expect(missing.status == 404)
    }

    @Test func withoutGzipInAcceptEncodingPywbInflatesTheStoredGzipBody() throws {
        let folder = try WARCWriterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("identity.warc.gz").path
        try Self.write(Self.records(), to: path)
        guard let answers = try ReplayReader.replay([path], urls: [Self.gzipURL], acceptEncoding: "identity") else {
            return
        }
        #expect(answers[0].status == 200)
        #expect(answers[0].bodyBytes == Array("hello, archive".utf8))
        #expect(answers[0].header("Content-Encoding") == nil)
    }
}
