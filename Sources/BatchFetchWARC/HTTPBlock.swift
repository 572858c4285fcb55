/// The block of a `request` or `response` record: an HTTP/1.1 message head as it went over the
/// wire, then the body as stored. A value with no I/O.
///
/// The head keeps the bytes as sent or received: field order, repeats, case and bytes outside
/// ASCII are not touched (warcio's own capture re-encodes them, warcio#128), with one exception:
/// a `Transfer-Encoding` field is renamed with ``renamedFieldPrefix``, because the body is stored
/// with its transfer coding removed, and a reader that saw the field would de-chunk it again. The
/// content coding stays: a gzip answer is stored as gzip, so the payload digest is that of the
/// entity every reader sees (wpull#424 and heritrix3#769 digested the chunk framing instead).
public struct HTTPBlock: Sendable, Equatable {
    /// The block's bytes: head, blank line, body.
    public let bytes: [UInt8]
    /// Where the body (the payload, WARC 1.1 §5.9) starts in ``bytes``.
    public let payloadStart: Int

    /// What a renamed field's name starts with: `Transfer-Encoding` becomes
    /// `X-Crawler-Transfer-Encoding`, with the case it was received in.
    public static let renamedFieldPrefix = "X-Crawler-"

    /// A response block.
    ///
    /// - Parameters:
    ///   - statusLine: the status line as received, with or without its line break (a CRLF is added
    ///     when it has none).
    ///   - headerBytes: the header field lines as received, each with its line break; a last line
    ///     without a break gets a CRLF. The blank line that ends them is added here (one given is
    ///     dropped).
    ///   - body: the body as stored: its content coding kept, its transfer coding removed.
    public static func response(statusLine: [UInt8], headerBytes: [UInt8], body: some Collection<UInt8>) -> HTTPBlock {
        HTTPBlock(startLine: statusLine, headerBytes: headerBytes, body: body)
    }

    /// A request block: `METHOD target HTTP/1.1`, the header field lines as sent (as in
    /// ``response(statusLine:headerBytes:body:)``), and the body sent, if any.
    public static func request(method: String, target: String, headerBytes: [UInt8], body: [UInt8]) -> HTTPBlock {
        HTTPBlock(startLine: Array("\(method) \(target) HTTP/1.1".utf8), headerBytes: headerBytes, body: body)
    }

    /// A request block whose request line is `line` (with or without its line break).
    static func request(line: [UInt8], headerBytes: [UInt8], body: [UInt8]) -> HTTPBlock {
        HTTPBlock(startLine: line, headerBytes: headerBytes, body: body)
    }

    /// The block in `bytes`, a head and a body split at the first blank line (CRLF CRLF, or LF LF);
    /// `nil` when there is none.
    public init?(parsing bytes: [UInt8]) {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    self.payloadStart = index + 2
                    self.bytes = bytes
                    return
                }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"),
                    bytes[index + 2] == UInt8(ascii: "\n")
                {
                    self.payloadStart = index + 3
                    self.bytes = bytes
                    return
                }
            }
            index += 1
        }
        return nil
    }

    private init(startLine: [UInt8], headerBytes: [UInt8], body: some Collection<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(startLine.count + headerBytes.count + body.count + 64)
        Self.appendLine(startLine[...], to: &bytes)
        var rest = headerBytes[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? rest.endIndex
            let line = rest[..<end]
            rest = rest[end...]
            // A blank line would end the head early; libcurl hands the head's last one over as a
            // header line of its own, so a caller may pass it along.
            if line.allSatisfy({ $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) {
                continue
            }
            if Self.isTransferEncoding(line) {
                bytes += Self.renamedFieldPrefix.utf8
            }
            Self.appendLine(line, to: &bytes)
        }
        bytes.appendLiteral("\r\n")
        self.payloadStart = bytes.count
        bytes += body
        self.bytes = bytes
    }

    /// The status code of a response block's status line (`HTTP/1.1 200 OK` → 200), or `nil`.
    public var status: Int? {
        Self.status(ofStartLine: self.bytes[...])
    }

    /// The status code of a status line (`HTTP/1.1 200 OK` → 200), or `nil`; what follows its
    /// first line break is not read.
    static func status(ofStartLine bytes: ArraySlice<UInt8>) -> Int? {
        // `HTTP/…`, spaces, exactly three digits, then a space or the line's end.
        let line = bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard line.starts(with: "HTTP/".utf8), let space = line.firstIndex(of: UInt8(ascii: " ")) else {
            return nil
        }
        let code = line[space...].drop { $0 == UInt8(ascii: " ") }.prefix { $0 != UInt8(ascii: " ") }
        guard code.count == 3, code.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return code.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The value of the head's first field named `name` (compared without regard to case), its
    /// surrounding white space removed, decoded as UTF-8 (bytes that are not become U+FFFD).
    public func headerValue(_ name: String) -> String? {
        let head = self.bytes[..<self.payloadStart]
        // Past the start line.
        let firstField = (head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex) + 1
        return Self.headerValue(name, inFieldLines: head[min(firstField, head.endIndex)...])
    }

    /// ``headerValue(_:)`` over header field lines alone (no start line).
    static func headerValue(_ name: String, inFieldLines lines: ArraySlice<UInt8>) -> String? {
        var lineStart = lines.startIndex
        while lineStart < lines.endIndex {
            let lineEnd = lines[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? lines.endIndex
            let line = lines[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                line[..<colon].elementsEqual(name.utf8, by: { $0.asciiLowercased == $1.asciiLowercased })
            else {
                continue
            }
            let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            let end = value.lastIndex { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }.map { $0 + 1 } ?? value.startIndex
            return String(decoding: value[..<end], as: UTF8.self)
        }
        return nil
    }

    private static func appendLine(_ line: ArraySlice<UInt8>, to bytes: inout [UInt8]) {
        bytes += line
        if line.last != UInt8(ascii: "\n") {
            bytes.appendLiteral("\r\n")
        }
    }

    /// Whether `line` is a `Transfer-Encoding` field: its name, up to the colon, is that name in
    /// any case (RFC 9112 §5.1 allows no white space before the colon; a line with some is not
    /// a field a reader would act on).
    private static func isTransferEncoding(_ line: ArraySlice<UInt8>) -> Bool {
        let name: StaticString = "transfer-encoding"
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[line.startIndex + count] == UInt8(ascii: ":") else {
            return false
        }
        return zip(line, UnsafeBufferPointer(start: name.utf8Start, count: count)).allSatisfy { pair in
            pair.0.asciiLowercased == pair.1
        }
    }
}
