import BatchFetch
import BatchFetchWARC
import Foundation
import Testing

/// The digests the engine hashed (`Exchange.bodyHash`) stand in for the writer's own: the payload
/// digest always, the block digest only when the block's head is the head as received.
@Suite struct EngineHashTests {
    static let body = Data("{\"drinks\":[{\"idDrink\":\"11007\"}]}".utf8)

    /// The response record's `WARC-Payload-Digest` and `WARC-Block-Digest` for `exchange`.
    static func digests(of exchange: Exchange) throws -> (payload: String?, block: String?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("hash.warc").path
        let archive = try WARCArchive(path: path, software: "batchfetch test")
        _ = try archive.archive([exchange])
        try archive.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let response = try #require(
            text.components(separatedBy: "WARC/1.1\r\n").first { $0.contains("WARC-Type: response") })
        let fields = response.components(separatedBy: "\r\n")
        let value = { (name: String) in
            fields.first { $0.hasPrefix(name + ": ") }.map { String($0.dropFirst(name.count + 2)) }
        }
        return (value("WARC-Payload-Digest"), value("WARC-Block-Digest"))
    }

    static func exchange(head: String, version: HTTPVersion = .http1_1, hash: Exchange.BodyHash?) -> Exchange {
        var exchange = Exchange(
            url: "http://127.0.0.1:8080/lookup.php?i=11007", date: Date(timeIntervalSince1970: 1_700_000_000),
            requestHead: Data("GET /lookup.php?i=11007 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8),
            responseHead: Data(head.utf8), body: Self.body, address: "127.0.0.1", httpVersion: version)
        exchange.bodyHash = hash
        return exchange
    }

    static let plain = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
    static let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    static let http2 = "HTTP/2 200\r\ncontent-type: application/json\r\n\r\n"

    /// The engine's hashes give the very digests the writer computes, whatever the head.
    @Test(arguments: [(plain, HTTPVersion.http1_1), (chunked, .http1_1), (http2, .http2)])
    func engineHashesGiveTheWritersDigests(head: String, version: HTTPVersion) throws {
        let own = try Self.digests(of: Self.exchange(head: head, version: version, hash: nil))
        let hashed = Exchange.BodyHash(.sha1, of: Self.body, head: Data(head.utf8))
        let given = try Self.digests(of: Self.exchange(head: head, version: version, hash: hashed))
        #expect(own.payload != nil && own.block != nil)
        #expect(given.payload == own.payload && given.block == own.block)
    }

    /// A planted hash shows which digests come from the engine: both for a head kept as received,
    /// only the payload's where the block's head differs (a field renamed, a status line rewritten).
    @Test func theBlockDigestIsTakenOnlyWhenTheHeadIsAsReceived() throws {
        for (head, version, blockTaken) in [
            (Self.plain, HTTPVersion.http1_1, true), (Self.chunked, .http1_1, false), (Self.http2, .http2, false),
        ] {
            let planted = Exchange.BodyHash(.sha1, of: Data("another body".utf8), head: Data("another head".utf8))
            let digests = try Self.digests(of: Self.exchange(head: head, version: version, hash: planted))
            #expect(digests.payload == WARCDigest.sha1.label(ofHash: planted))
            let own = try Self.digests(of: Self.exchange(head: head, version: version, hash: nil))
            #expect((digests.block != own.block) == blockTaken, "\(head)")
        }
        // A SHA-256 hash is not taken for SHA-1 digests.
        let other = Exchange.BodyHash(.sha256, of: Data("another body".utf8), head: Data(Self.plain.utf8))
        let own = try Self.digests(of: Self.exchange(head: Self.plain, hash: nil))
        #expect(try Self.digests(of: Self.exchange(head: Self.plain, hash: other)) == own)
    }
}
