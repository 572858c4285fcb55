import Foundation
import TestSupport
import Testing

/// A download that broke off goes on where it stopped when retried: `Range` from the bytes it
/// has, checked by `If-Range` against the first response's validator (issue 54), as `curl -C -`
/// and aria2c do. The test server's `/resumable` closes the first response's connection halfway.
@Suite(.serialized)
struct FetchResumeTests {
    private static let size = 200_000
    private static let cut = 123_457

    private static var entity: String {
        String(decoding: (0..<Self.size).map { TestHTTPServer.resumableByte($0) }, as: UTF8.self)
    }

    /// Runs `fetch` on one `/resumable` URL with `query`; returns its record and the server's arrivals.
    private func fetch(_ query: String) async throws -> (record: [String: Any], arrivals: [TestHTTPServer.Arrival]) {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/resumable?size=\(Self.size)&cut=\(Self.cut)&\(query)"
            let output = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q"], stdin: url + "\n", deadline: 60)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.count == 1)
            return (records.first ?? [:], server.arrivals)
        }
    }

    private static func field(_ name: String, of arrival: TestHTTPServer.Arrival) -> String? {
        let prefix = name.lowercased() + ": "
        return arrival.head.components(separatedBy: "\r\n")
            .first { $0.lowercased().hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// With a strong ETag the retry asks for the rest only; the record is the whole entity, 200.
    @Test func aRetriedDownloadAsksForTheRestAndTheRecordIsWhole() async throws {
        let (record, arrivals) = try await self.fetch("key=etag")
        #expect(record["status"] as? Int == 200 && record["ok"] as? Bool == true)
        #expect(record["bytes"] as? Int == Self.size)
        #expect(record["body"] as? String == Self.entity)
        #expect(record["attempts"] as? Int == 2)
        #expect(arrivals.count == 2)
        if arrivals.count == 2 {
            #expect(Self.field("Range", of: arrivals[0]) == nil)
            #expect(Self.field("Range", of: arrivals[1]) == "bytes=\(Self.cut)-")
            #expect(Self.field("If-Range", of: arrivals[1]) == "\"v1\"")
        }
    }

    /// Last-Modified serves as the validator when there is no ETag.
    @Test func lastModifiedValidatesTheRangeWithoutAnETag() async throws {
        let (record, arrivals) = try await self.fetch("key=lm&validator=lm")
        #expect(record["body"] as? String == Self.entity)
        #expect(arrivals.count == 2)
        if arrivals.count == 2 {
            #expect(Self.field("Range", of: arrivals[1]) == "bytes=\(Self.cut)-")
            #expect(Self.field("If-Range", of: arrivals[1]) == "Tue, 03 Nov 2026 10:00:00 GMT")
        }
    }

    /// The entity changed between the attempts: the server sends it whole (If-Range fails) and
    /// the record holds the new entity, not a splice of two.
    @Test func aChangedEntityComesBackWholeNotSpliced() async throws {
        let (record, arrivals) = try await self.fetch("key=changed&changed=1")
        #expect(record["status"] as? Int == 200)
        #expect(record["body"] as? String == Self.entity)
        #expect(record["bytes"] as? Int == Self.size)
        #expect(arrivals.count == 2)
    }

    /// A 206 of another range than the one asked for is not spliced in: that attempt fails and
    /// the next starts from the first byte.
    @Test func aRangeThatStartsElsewhereIsRefusedAndTheDownloadStartsAnew() async throws {
        let (record, arrivals) = try await self.fetch("key=skew&skew=7")
        #expect(record["status"] as? Int == 200)
        #expect(record["body"] as? String == Self.entity)
        #expect(record["attempts"] as? Int == 3)
        #expect(arrivals.count == 3)
        if arrivals.count == 3 {
            #expect(Self.field("Range", of: arrivals[1]) == "bytes=\(Self.cut)-")
            #expect(Self.field("Range", of: arrivals[2]) == nil)
        }
    }

    /// Without a strong validator (none, or a weak ETag) nothing can check the range: the retry
    /// starts from the first byte.
    @Test(arguments: ["none", "weak"])
    func withoutAStrongValidatorTheRetryStartsAnew(validator: String) async throws {
        let (record, arrivals) = try await self.fetch("key=\(validator)&validator=\(validator)")
        #expect(record["body"] as? String == Self.entity)
        #expect(arrivals.count == 2)
        if arrivals.count == 2 {
            #expect(Self.field("Range", of: arrivals[1]) == nil)
            #expect(Self.field("If-Range", of: arrivals[1]) == nil)
        }
    }
}
