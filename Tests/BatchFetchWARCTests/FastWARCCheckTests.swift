import Foundation
import TestSupport
import Testing

@testable import BatchFetchWARC

/// The files of ``ReplayTests`` verified by fastwarc (`fastwarc check --verify-payloads`, through
/// `scripts/warc-check check`): a reader written apart from warcio must agree with every digest,
/// and must catch one changed byte.
struct FastWARCCheckTests {
    @Test(arguments: ["verified.warc.gz", "verified.warc"])
    func fastwarcVerifiesEveryBlockAndPayloadDigest(name: String) throws {
        let folder = try WARCWriterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        let records = try Array(ReplayTests.records().dropLast())
        #expect(!records.contains { $0.kind == .revisit })
        try ReplayTests.write(records, to: path)
        guard let report = try OutsideReader.report(path), let fastwarc = Self.fastwarc(report) else {
            return
        }
        #expect(fastwarc.status == 0, "\(fastwarc.output) \(fastwarc.records)")
        #expect(fastwarc.passed == true)
        #expect(fastwarc.output.contains("\(records.count) records were verified successfully"), "\(fastwarc.output)")
        #expect(fastwarc.records.map(\.id) == records.map(\.id))
        #expect(fastwarc.records.allSatisfy { $0.block == "OK" }, "\(fastwarc.records)")
        // Every response's payload digest checked and matched; the warcinfo has none.
        #expect(fastwarc.records.map(\.payload) == ["NO_DIGEST", "OK", "OK", "OK"], "\(fastwarc.records)")
    }

    @Test func fastwarcFailsOnlyTheRevisitWhosePayloadDigestIsThatOfTheRecordItRefersTo() throws {
        let folder = try WARCWriterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("revisit.warc.gz").path
        let records = try ReplayTests.records()
        let (binary, revisit) = (records[2], records[4])
        try ReplayTests.write(records, to: path)
        guard let report = try OutsideReader.report(path), let fastwarc = Self.fastwarc(report) else {
            return
        }
        // fastwarc digests the revisit's empty payload; WARC 1.1 §6.7.2 makes its
        // WARC-Payload-Digest that of the payload it refers to, which fastwarc verified there.
        #expect(fastwarc.passed == true, "\(fastwarc.output) \(fastwarc.records)")
        #expect(fastwarc.records.map(\.type) == ["warcinfo", "response", "response", "response", "revisit"])
        #expect(fastwarc.records.allSatisfy { $0.block == "OK" }, "\(fastwarc.records)")
        let failed = fastwarc.records.filter { $0.block == "FAIL" || $0.payload == "FAIL" }
        #expect(failed.map(\.id) == [revisit.id] || failed.isEmpty, "\(failed)")
        #expect(revisit.field("WARC-Payload-Digest") == binary.payloadDigest)
        #expect(fastwarc.records.first { $0.id == binary.id }?.payload == "OK")
    }

    @Test func fastwarcFailsAFileWhosePayloadWasChanged() throws {
        let folder = try WARCWriterTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("changed.warc").path
        let records = try ReplayTests.records()
        try ReplayTests.write(records, to: path)
        // One byte of the binary body, changed in place: both its digests no longer match.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let head = records[0].serialized.count + records[1].serialized.count + records[2].head.count
        let at = head + (records[2].block.count - ReplayTests.binaryBody.count) + 100
        #expect(bytes[at] == ReplayTests.binaryBody[100])
        bytes[at] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard let report = try OutsideReader.report(path), let fastwarc = Self.fastwarc(report) else {
            return
        }
        #expect(fastwarc.status != 0)
        let changed = fastwarc.records.first { $0.id == records[2].id }
        #expect(changed?.block == "FAIL")
        #expect(changed?.payload == "FAIL")
        #expect(fastwarc.records.filter { $0.id != records[2].id }.allSatisfy { $0.block == "OK" })
        #expect(fastwarc.output.contains(records[2].id))
    }

    /// fastwarc's part of the report, or `nil` (said) when pip could not install it.
    static func fastwarc(_ report: OutsideReader.Report) -> OutsideReader.Report.FastWARC? {
        if let skipped = report.fastwarc.skipped {
            #expect(!WARCCheckScript.required, "fastwarc: \(skipped)")
            print("ReplayTests: fastwarc skipped: \(skipped)")
            return nil
        }
        return report.fastwarc
    }
}
