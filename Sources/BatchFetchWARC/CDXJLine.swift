/// One line of a CDXJ index (pywb's format): the SURT key, the 14-digit timestamp, and a JSON
/// object saying where the capture is, e.g.
///
///     com,example)/a?b=1 20261129100000 {"url": "http://www.example.com/a?b=1", "mime": "text/html", "status": "200", "digest": "sha1:…", "length": "338", "offset": "0", "filename": "crawl.warc.gz"}
///
/// The JSON is written as pywb's and cdxj-indexer's Python writes it (`json.dumps`: `", "` and
/// `": "` between items, every value a string, non-ASCII as `\u` escapes), so an index of ours and
/// one of theirs sort and compare alike. A value with no I/O.
public struct CDXJLine: Sendable, Hashable {
    /// The archived URL (the record's `WARC-Target-URI`).
    public var url: String
    /// The capture's date (the record's `WARC-Date`).
    public var date: WARCDate
    /// The response's media type without parameters (`text/html`), when it has a `Content-Type`.
    public var mime: String?
    /// The response's status code, when its status line has one.
    public var status: Int?
    /// The record's `WARC-Payload-Digest`.
    public var digest: String?
    /// Where the record is in its file.
    public var placement: WARCWriter.Placement
    /// The WARC file's name, as a replay tool finds it (usually without a folder).
    public var filename: String

    /// A line with the given values.
    public init(
        url: String,
        date: WARCDate,
        mime: String?,
        status: Int?,
        digest: String?,
        placement: WARCWriter.Placement,
        filename: String
    ) {
        self.url = url
        self.date = date
        self.mime = mime
        self.status = status
        self.digest = digest
        self.placement = placement
        self.filename = filename
    }

    /// The line for `record`, a response or revisit written at `placement` in `filename`; `nil`
    /// for other records, which replay tools do not look up.
    public init?(record: WARCRecord, placement: WARCWriter.Placement, filename: String) {
        guard let url = record.field("WARC-Target-URI") else {
            return nil
        }
        self.init(
            kind: record.kind, url: url, date: record.date, block: record.block,
            payloadDigest: record.field("WARC-Payload-Digest"), placement: placement, filename: filename)
    }

    /// The line for a record of `kind` whose block is `block`; `nil` unless a response or revisit.
    init?(
        kind: WARCRecord.Kind, url: String, date: WARCDate, block bytes: [UInt8], payloadDigest: String?,
        placement: WARCWriter.Placement, filename: String
    ) {
        let head = HTTPBlock(parsing: bytes).map { $0.bytes[..<$0.payloadStart] } ?? []
        let firstField = min((head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex) + 1, head.endIndex)
        self.init(
            kind: kind, url: url, date: date, statusLine: head[..<firstField], fieldLines: head[firstField...],
            payloadDigest: payloadDigest, placement: placement, filename: filename)
    }

    /// The line for a record of `kind` whose block's head is `statusLine` and `fieldLines` (as an
    /// archive has them before it builds the block); `nil` unless a response or revisit.
    init?(
        kind: WARCRecord.Kind, url: String, date: WARCDate, statusLine: ArraySlice<UInt8>,
        fieldLines: ArraySlice<UInt8>, payloadDigest: String?, placement: WARCWriter.Placement, filename: String
    ) {
        guard kind == .response || kind == .revisit else {
            return nil
        }
        let mime = HTTPBlock.headerValue("Content-Type", inFieldLines: fieldLines).map(Self.mediaType(of:))
        self.init(
            url: url,
            date: date,
            // pywb and cdxj-indexer mark a revisit by its mime type, which replay then resolves.
            mime: kind == .revisit ? "warc/revisit" : mime?.isEmpty == false ? mime : nil,
            status: HTTPBlock.status(ofStartLine: statusLine),
            digest: payloadDigest,
            placement: placement,
            filename: filename
        )
    }

    /// A `Content-Type` value's media type: up to its first `;`, without surrounding spaces or
    /// tabs, lowercased.
    static func mediaType(of value: String) -> String {
        var value = value
        return value.withUTF8 { bytes in
            let type = bytes.prefix { $0 != UInt8(ascii: ";") }
            let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            guard let first = type.firstIndex(where: { !isBlank($0) }),
                let last = type.lastIndex(where: { !isBlank($0) })
            else {
                return ""
            }
            let trimmed = type[first...last]
            guard trimmed.allSatisfy({ $0 < 0x80 }) else {
                return String(decoding: trimmed, as: UTF8.self).lowercased()
            }
            return String(decoding: trimmed.map(\.asciiLowercased), as: UTF8.self)
        }
    }

    /// The line, without its line break.
    public var text: String {
        String(decoding: self.bytes, as: UTF8.self)
    }

    /// ``text``'s bytes, built as bytes: an index line is made for every response archived.
    var bytes: [UInt8] {
        var line = SURT.keyBytes(self.url)
        line.reserveCapacity(line.count + 200 + self.url.utf8.count)
        line.append(UInt8(ascii: " "))
        line += self.date.timestamp14Bytes
        line.appendLiteral(" {")
        Self.appendItem("url", self.url, to: &line, first: true)
        if let mime = self.mime {
            Self.appendItem("mime", mime, to: &line)
        }
        if let status = self.status {
            Self.appendItem("status", String(status), to: &line)
        }
        if let digest = self.digest {
            Self.appendItem("digest", digest, to: &line)
        }
        Self.appendItem("length", String(self.placement.length), to: &line)
        Self.appendItem("offset", String(self.placement.offset), to: &line)
        Self.appendItem("filename", self.filename, to: &line)
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// `"name": "value"` after `, ` (unless `first`), as ``jsonString(_:)`` writes each (the
    /// names need no escape).
    private static func appendItem(_ name: StaticString, _ value: String, to line: inout [UInt8], first: Bool = false) {
        if !first {
            line.appendLiteral(", ")
        }
        line.append(UInt8(ascii: "\""))
        line.appendLiteral(name)
        line.appendLiteral("\": ")
        var value = value
        let plain = value.withUTF8 { bytes in
            guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) else {
                return false
            }
            line.append(UInt8(ascii: "\""))
            line.append(contentsOf: bytes)
            line.append(UInt8(ascii: "\""))
            return true
        }
        if !plain {
            line.appendUTF8(Self.jsonString(value))
        }
    }

    /// `value` as Python's `json.dumps` writes a string: ASCII only, UTF-16 `\u` escapes.
    static func jsonString(_ value: String) -> String {
        // Most values (URLs, types, digests, names) need no escape: written as they are.
        if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            return "\"" + value + "\""
        }
        var out = "\""
        for unit in value.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
