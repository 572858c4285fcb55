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

    private var writer: WARCWriter
    let digest: WARCDigest
    private let software: String
    private let fields: [WARCField]
    private let maxSize: Int64?
    /// The file being written's name.
    private var filename: String
    /// With an index, the file's index lines so far.
    private let index: CDXJIndexLines?
    /// The path given, and how many files it has been rotated into so far.
    private let firstPath: String
    private var rotations = 0
    /// Every file closed so far.
    public private(set) var closedPaths: [String] = []
    /// With deduplication, the capture of each payload digest archived so far (or indexed before).
    var captures: [String: Capture]?

    /// Creates the file at `path` (see ``WARCWriter``) and writes its `warcinfo` record.
    /// - Parameters:
    ///   - software: the warcinfo's `software` (name and version).
    ///   - fields: the warcinfo's further fields (libcurl's version, the options, …).
    ///   - indexes: whether each file gets a CDXJ index beside it when it closes
    ///     (``indexPath(for:)``).
    ///   - maxSize: once a file holds this many bytes, the next exchange starts a new file
    ///     (``rotatedPath(_:number:)``) with a warcinfo of its own; `nil` for one file.
    /// - Throws: ``WARCError`` when the file cannot be made or the warcinfo cannot be written.
    ///   - dedup: with a map (empty, or read from an index with ``captures(inIndex:)``), a 2xx
    ///     payload archived before is written as a `revisit` that refers to it; `nil` for none.
    ///   - indexRunBytes: how many bytes of index lines are kept in memory before they are sorted
    ///     into a temporary file beside the index (merged when the file closes).
    ///   - firstNumber: the first file's number in `path`'s series (0: `path` itself; else
    ///     ``rotatedPath(_:number:)``), for a run that continues a series (``firstFreeNumber(in:)``).
    public init(
        path: String, digest: WARCDigest = .sha1, software: String, fields: [WARCField] = [], indexes: Bool = false,
        maxSize: Int64? = nil, dedup: [String: Capture]? = nil, indexRunBytes: Int = 4 << 20, firstNumber: Int = 0
    ) throws(WARCError) {
        self.captures = dedup
        self.rotations = firstNumber
        self.firstPath = path
        self.digest = digest
        self.software = software
        self.fields = fields
        self.maxSize = maxSize
        let folder = (path as NSString).deletingLastPathComponent
        self.index = indexes ? CDXJIndexLines(folder: folder.isEmpty ? "." : folder, runBytes: indexRunBytes) : nil
        (self.writer, self.filename) = try Self.open(
            firstNumber > 0 ? Self.rotatedPath(path, number: firstNumber) : path, digest: digest, software: software,
            fields: fields)
    }

    private static func open(
        _ path: String, digest: WARCDigest, software: String, fields: [WARCField]
    ) throws(WARCError) -> (WARCWriter, String) {
        // igzip's fastest level: compressing was most of what archiving costs, and files are
        // written once and read rarely.
        let compression = WARCWriter.Compression.forPath(path) == .none ? WARCWriter.Compression.none : .gzip(level: 0)
        let writer = try WARCWriter(path: path, compression: compression)
        let filename = (path as NSString).lastPathComponent
        let info = try Self.record {
            try WARCRecord.warcinfo(
                date: .now(), filename: filename, software: software, fields: fields, digest: digest)
        }
        _ = try writer.write(info)
        return (writer, filename)
    }

    /// The file being written's name once closed.
    public var path: String { self.writer.path }

    /// Where the index of the file at `path` goes: its name without `.warc.gz` or `.warc`, and
    /// `.cdxj`.
    public static func indexPath(for path: String) -> String {
        Self.stem(of: path).stem + ".cdxj"
    }

    /// The name of the `number`th file after the first: `NAME-00001.warc.gz` for `NAME.warc.gz`.
    public static func rotatedPath(_ path: String, number: Int) -> String {
        let (stem, suffix) = Self.stem(of: path)
        return stem + "-" + String(format: "%05d", number) + suffix
    }

    private static func stem(of path: String) -> (stem: String, suffix: String) {
        for suffix in [".warc.gz", ".warc"] where path.hasSuffix(suffix) {
            return (String(path.dropLast(suffix.count)), suffix)
        }
        return (path, "")
    }

    /// Closes the full file and opens the next, when the size is reached.
    private func rotateIfFull() throws(WARCError) {
        guard let maxSize = self.maxSize, self.writer.size >= maxSize else {
            return
        }
        try self.closeFile()
        // Past any file of the series already there (an earlier run's), which is never overwritten.
        repeat {
            self.rotations += 1
        } while Self.isTaken(Self.rotatedPath(self.firstPath, number: self.rotations))
        (self.writer, self.filename) = try Self.open(
            Self.rotatedPath(self.firstPath, number: self.rotations), digest: self.digest, software: self.software,
            fields: self.fields)
    }

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
        try self.rotateIfFull()
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
        let options = WARCRecord.ExchangeOptions(
            ipAddress: exchange.address, protocols: protocols,
            truncated: exchange.truncated.flatMap { WARCTruncation(rawValue: $0.rawValue) }, digest: self.digest)
        let response = try Self.record {
            try self.responseOrRevisit(exchange, date: date, statusLine: status, fields: fields, options: options)
        }
        let (requestLine, requestFields) = Self.split(Array(exchange.requestHead))
        let request = try Self.record {
            try WARCRecord.request(
                targetURI: exchange.url, date: date, requestLine: Self.oneOneRequestLine(requestLine),
                headerBytes: requestFields, body: Array(exchange.requestBody),
                options: WARCRecord.ExchangeOptions(
                    concurrentTo: response.id, ipAddress: exchange.address, protocols: protocols, digest: self.digest))
        }
        let placement = try self.writer.write([(response, !Self.isCompressed(fields)), (request, true)])[0]
        // The line from what is known here: parsing the record's block again cost a sixth of the index.
        if let index = self.index,
            let line = CDXJLine(
                kind: response.kind, url: exchange.url, date: date, statusLine: status[...], fieldLines: fields[...],
                payloadDigest: response.kind == .response
                    ? response.payloadDigest : response.field("WARC-Payload-Digest"),
                placement: placement, filename: self.filename)
        {
            try index.append(bytes: line.bytes)
        }
        return Location(file: self.filename, offset: placement.offset, length: placement.length, recordID: response.id)
    }

    /// Closes the file (renamed from its `.open` name) and writes its index, when there is one.
    public func close() throws(WARCError) {
        try self.closeFile()
    }

    private func closeFile() throws(WARCError) {
        guard self.closedPaths.last != self.writer.path else {
            return
        }
        try self.writer.close()
        self.closedPaths.append(self.writer.path)
        try self.index?.write(to: Self.indexPath(for: self.writer.path))
    }

    /// Whether a response's body is compressed already, by its header lines: a content coding,
    /// or a media type whose formats compress (images, audio, video, archives, fonts).
    static func isCompressed(_ fields: [UInt8]) -> Bool {
        var lineStart = 0
        while lineStart < fields.count {
            let lineEnd = fields[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? fields.count
            let line = fields[lineStart..<lineEnd]
            // Both names start with a C: most lines end here.
            if fields[lineStart] | 0x20 != UInt8(ascii: "c") {
                lineStart = lineEnd + 1
                continue
            }
            if let value = Self.value(of: "content-encoding:", in: line) {
                let coding = Self.trimmed(value)
                if !coding.isEmpty && !coding.isASCIICaseInsensitive("identity") {
                    return true
                }
            } else if let value = Self.value(of: "content-type:", in: line) {
                let type = Self.trimmed(value)
                let svg = Self.startsWithLowercased(type, "image/svg".utf8)
                if !svg && Self.compressedTypes.contains(where: { Self.startsWithLowercased(type, $0) }) {
                    return true
                }
            }
            lineStart = lineEnd + 1
        }
        return false
    }

    /// `bytes` without surrounding white space.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else {
            return []
        }
        return bytes[first...last]
    }

    /// Whether `bytes`, ASCII letters lowercased, start with `prefix` (lower case).
    private static func startsWithLowercased(_ bytes: ArraySlice<UInt8>, _ prefix: some Collection<UInt8>) -> Bool {
        bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0.asciiLowercased == $1 }
    }

    /// What follows `name` (lower case, with its colon) when `line` starts with it in any case.
    private static func value(of name: StaticString, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count >= count else {
            return nil
        }
        let bytes = UnsafeBufferPointer(start: name.utf8Start, count: count)
        var index = line.startIndex
        for expected in bytes {
            guard line[index] | 0x20 == expected | 0x20 else {
                return nil
            }
            index += 1
        }
        return line[index...]
    }

    private static let compressedTypes = [
        "image/", "audio/", "video/", "font/woff", "application/zip", "application/gzip", "application/x-gzip",
        "application/zstd", "application/x-7z", "application/x-rar", "application/x-bzip2", "application/x-xz",
    ].map { Array($0.utf8) }

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

    /// A request line (`GET /a?b=1 HTTP/2`) as `METHOD target HTTP/1.1`, without its line break;
    /// `GET / HTTP/1.1` when it has no method and target.
    static func oneOneRequestLine(_ line: [UInt8]) -> [UInt8] {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x0D || byte == 0x0A || byte == 0x09 }
        let method = line.drop(while: isBlank).prefix { !isBlank($0) }
        let target = line[method.endIndex...].drop(while: isBlank).prefix { !isBlank($0) }
        guard !method.isEmpty, !target.isEmpty else {
            return Array("GET / HTTP/1.1".utf8)
        }
        var out: [UInt8] = []
        out.reserveCapacity(method.count + target.count + 10)
        out += method
        out.append(0x20)
        out += target
        out.appendLiteral(" HTTP/1.1")
        return out
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
