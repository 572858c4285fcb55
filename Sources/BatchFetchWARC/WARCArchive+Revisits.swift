import BatchFetch
import Foundation

extension WARCArchive {
    /// An earlier capture of a payload, which a `revisit` record refers to.
    public struct Capture: Sendable, Hashable {
        /// Its `WARC-Record-ID`, when known (a CDXJ index does not hold it).
        public var recordID: String?
        /// Its `WARC-Target-URI`.
        public var targetURI: String
        /// Its `WARC-Date`.
        public var date: WARCDate

        public init(recordID: String?, targetURI: String, date: WARCDate) {
            self.recordID = recordID
            self.targetURI = targetURI
            self.date = date
        }
    }

    /// The record for an exchange's response: a `revisit` when the server said not modified
    /// (`304`, server-not-modified profile) or, with deduplication, when a 2xx payload with this
    /// digest was archived before (identical-payload-digest profile); a `response` otherwise.
    func responseOrRevisit(
        _ exchange: Exchange, date: WARCDate, statusLine: [UInt8], fields: [UInt8],
        options: WARCRecord.ExchangeOptions
    ) throws -> WARCRecord {
        let status = statusLine.withUnsafeBufferPointer { ResponseTrail.status(of: $0) }
        if status == 304 {
            return try WARCRecord.revisit(
                targetURI: exchange.url, date: date, statusLine: statusLine, headerBytes: fields,
                profile: .serverNotModified(refersTo: nil, refersToTargetURI: nil, refersToDate: nil), options: options)
        }
        let known = exchange.bodyHash.flatMap { self.digest.label(ofHash: $0) }
        let received = exchange.bodyHash.flatMap { self.digest.label(ofMessageHash: $0) }.map {
            (head: exchange.responseHead, digest: $0)
        }
        guard self.captures != nil, (200..<300).contains(status), !exchange.body.isEmpty, exchange.truncated == nil
        else {
            return try WARCRecord.response(
                targetURI: exchange.url, date: date, statusLine: statusLine, headerBytes: fields, body: exchange.body,
                options: options, payloadDigest: known, received: received)
        }
        let digest = known ?? options.digest.label(of: exchange.body)
        if let earlier = self.captures?[digest] {
            return try WARCRecord.revisit(
                targetURI: exchange.url, date: date, statusLine: statusLine, headerBytes: fields,
                profile: .identicalPayloadDigest(
                    payloadDigest: digest, refersTo: earlier.recordID, refersToTargetURI: earlier.targetURI,
                    refersToDate: earlier.date),
                options: options)
        }
        let record = try WARCRecord.response(
            targetURI: exchange.url, date: date, statusLine: statusLine, headerBytes: fields, body: exchange.body,
            options: options, payloadDigest: digest, received: received)
        self.captures?[digest] = Capture(recordID: record.id, targetURI: exchange.url, date: date)
        return record
    }

    /// The captures a CDXJ index (pywb's form, as `--warc-cdx` writes it) names, by payload digest:
    /// its response lines (not its revisits), the first capture of each digest.
    /// - Throws: ``WARCError/Kind/io`` when the file cannot be read.
    public static func captures(inIndex path: String) throws(WARCError) -> [String: Capture] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WARCError.io("read", path, errno: errno)
        }
        var captures: [String: Capture] = [:]
        for line in data.split(separator: UInt8(ascii: "\n")) {
            // KEY TIMESTAMP {JSON}
            guard let brace = line.firstIndex(of: UInt8(ascii: "{")),
                let json = try? JSONSerialization.jsonObject(with: Data(line[brace...])) as? [String: Any],
                let digest = json["digest"] as? String, let url = json["url"] as? String,
                json["mime"] as? String != "warc/revisit"
            else {
                continue
            }
            let fields = line[..<brace].split(separator: UInt8(ascii: " "))
            guard fields.count >= 2, let date = WARCDate(timestamp14: String(decoding: fields[1], as: UTF8.self)),
                captures[digest] == nil
            else {
                continue
            }
            captures[digest] = Capture(recordID: nil, targetURI: url, date: date)
        }
        return captures
    }
}

extension WARCDate {
    /// The instant a 14-digit CDX timestamp (`20261129100000`) names; `nil` when it is not one.
    public init?(timestamp14 text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 14, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return nil
        }
        func number(_ from: Int, _ count: Int) -> Int {
            digits[from..<from + count].reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        var parts = DateComponents()
        parts.year = number(0, 4)
        parts.month = number(4, 2)
        parts.day = number(6, 2)
        parts.hour = number(8, 2)
        parts.minute = number(10, 2)
        parts.second = number(12, 2)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        guard let date = calendar.date(from: parts) else {
            return nil
        }
        self.init(seconds: Int64(date.timeIntervalSince1970))
    }
}
