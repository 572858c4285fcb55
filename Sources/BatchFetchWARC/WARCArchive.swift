import BatchFetch
import Foundation

/// Keeps a fetch's ``Exchange``s in a WARC file (`fetch --warc`): a `warcinfo` record first, then
/// for each exchange a `response` record and the `request` record that names it
/// (`WARC-Concurrent-To`), both with the exchange's `WARC-Date`; with an index, a CDXJ line per
/// response, written sorted, as pywb looks lines up, when the archive closes.
///
/// Over HTTP/2 and HTTP/3 both heads are written in HTTP/1.1 form (`HTTP/1.1 200 OK`, the field
/// names as received) with `WARC-Protocol: h2` or `h3`: readers reject an `HTTP/2 200` status
/// line (jwarc#70), and no other form is agreed (iipc/warc-specifications#15).
///
/// Threading: one thread writes and closes it (the record writer's, never the engine's).
public final class WARCArchive {
    /// Where a response record went: what a JSON record's `warc` field names.
    public struct Location: Sendable, Hashable {
        /// The file's name (its last path component), as the index names it.
        public let file: String
        /// The record's offset in the file (its gzip member's, when compressed).
        public let offset: Int64
        /// The record's length in the file.
        public let length: Int64
        /// Its `WARC-Record-ID`.
        public let recordID: String
    }

    private let writer: WARCWriter
    private let digest: WARCDigest
    private let filename: String
    private let indexPath: String?
    private var indexLines: [String] = []

    /// Creates the file at `path` (see ``WARCWriter``) and writes its `warcinfo` record.
    /// - Parameters:
    ///   - software: the warcinfo's `software` (name and version).
    ///   - fields: the warcinfo's further fields (libcurl's version, the options, …).
    ///   - indexPath: where the CDXJ index goes when the archive closes; `nil` for none.
    /// - Throws: ``WARCError`` when the file cannot be made or the warcinfo cannot be written.
    public init(
        path: String, digest: WARCDigest = .sha1, software: String, fields: [WARCField] = [],
        indexPath: String? = nil
    ) throws(WARCError) {
        self.writer = try WARCWriter(path: path)
        self.digest = digest
        self.filename = (path as NSString).lastPathComponent
        self.indexPath = indexPath
        let info = try Self.record {
            try WARCRecord.warcinfo(
                date: .now(), filename: self.filename, software: software, fields: fields, digest: digest)
        }
        _ = try self.writer.write(info)
    }

    /// The file's name once closed.
    public var path: String { self.writer.path }

    /// Writes `exchanges` in order. - Returns: where the last response record went; `nil` when
    /// there were none.
    public func archive(_ exchanges: [Exchange]) throws(WARCError) -> Location? {
        var last: Location?
        for exchange in exchanges {
            last = try self.archive(exchange)
        }
        return last
    }

    private func archive(_ exchange: Exchange) throws(WARCError) -> Location {
        let date = WARCDate(exchange.date)
        var protocols: [String] = []
        switch exchange.httpVersion {
        case .http2: protocols.append("h2")
        case .http3: protocols.append("h3")
        default: break
        }
        let rewritten = !protocols.isEmpty
        // `TLSv1.3` as `tls/1.3`, the form the WARC-Protocol proposal and browsertrix-crawler use.
        if let tls = exchange.tlsVersion, tls.hasPrefix("TLSv") {
            protocols.append("tls/" + tls.dropFirst(4))
        }
        let (statusLine, fields) = Self.split(Array(exchange.responseHead))
        let status = Self.oneOneStatusLine(statusLine, rewriting: rewritten)
        let response = try Self.record {
            try WARCRecord.response(
                targetURI: exchange.url, date: date, statusLine: status, headerBytes: fields,
                body: Array(exchange.body),
                options: WARCRecord.ExchangeOptions(
                    ipAddress: exchange.address, protocols: protocols,
                    truncated: exchange.truncated.flatMap { WARCTruncation(rawValue: $0.rawValue) },
                    digest: self.digest))
        }
        let (requestLine, requestFields) = Self.split(Array(exchange.requestHead))
        let (method, target) = Self.methodAndTarget(requestLine)
        let request = try Self.record {
            try WARCRecord.request(
                targetURI: exchange.url, date: date, method: method, target: target, headerBytes: requestFields,
                body: Array(exchange.requestBody),
                options: WARCRecord.ExchangeOptions(
                    concurrentTo: response.id, ipAddress: exchange.address, protocols: protocols, digest: self.digest))
        }
        let placement = try self.writer.write(response)
        _ = try self.writer.write(request)
        if self.indexPath != nil, let line = CDXJLine(record: response, placement: placement, filename: self.filename) {
            self.indexLines.append(line.text)
        }
        return Location(file: self.filename, offset: placement.offset, length: placement.length, recordID: response.id)
    }

    /// Closes the file (renamed from its `.open` name) and writes the index, when there is one.
    public func close() throws(WARCError) {
        try self.writer.close()
        guard let indexPath = self.indexPath else {
            return
        }
        // Byte order, as pywb's binary search and `LC_ALL=C sort` have it.
        let lines = self.indexLines.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        guard FileManager.default.createFile(atPath: indexPath, contents: Data(text.utf8)) else {
            throw WARCError.io("write", indexPath, errno: errno)
        }
    }

    /// The first line of a message head (its line break included) and the lines after it.
    static func split(_ head: [UInt8]) -> (first: [UInt8], rest: [UInt8]) {
        guard let newline = head.firstIndex(of: UInt8(ascii: "\n")) else {
            return (head, [])
        }
        return (Array(head[...newline]), Array(head[(newline + 1)...]))
    }

    /// `HTTP/2 200` as `HTTP/1.1 200 OK`; other status lines as they are.
    static func oneOneStatusLine(_ line: [UInt8], rewriting: Bool) -> [UInt8] {
        guard rewriting else {
            return line
        }
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2, let status = Int(parts[1].prefix(3)) else {
            return line
        }
        return Array("HTTP/1.1 \(status) \(HTTPReason.phrase(for: status))\r\n".utf8)
    }

    /// The method and target of a request line (`GET /a?b=1 HTTP/1.1`).
    static func methodAndTarget(_ line: [UInt8]) -> (method: String, target: String) {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count >= 2 else {
            return ("GET", "/")
        }
        return (String(parts[0]), String(parts[1]))
    }

    /// A record made by `make`, its only error as a ``WARCError``.
    private static func record(_ make: () throws -> WARCRecord) throws(WARCError) -> WARCRecord {
        do {
            return try make()
        } catch let error as WARCError {
            throw error
        } catch {
            throw WARCError.invalidField("\(error)")
        }
    }
}

extension WARCDate {
    /// The instant `date`, to the microsecond.
    public init(_ date: Date) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
        self.init(seconds: micros / 1_000_000, microseconds: Int32(micros % 1_000_000))
    }
}
