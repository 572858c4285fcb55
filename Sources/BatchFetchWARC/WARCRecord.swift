import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One WARC 1.1 record: its type, its header fields in the order they are written, and its block.
///
/// A record is a value with no I/O: the builders (``response(targetURI:date:statusLine:headerBytes:body:options:)``,
/// ``request(targetURI:date:method:target:headerBytes:body:options:)``,
/// ``warcinfo(date:filename:software:format:fields:digest:)``) or ``init(kind:id:date:targetURI:contentType:block:payloadStart:digest:fields:)``
/// compute the digests and `Content-Length`, and ``WARCWriter`` writes it. Safe to share between
/// threads.
public struct WARCRecord: Sendable {
    /// The record types this writer makes (WARC 1.1 §6).
    public enum Kind: String, Sendable, CaseIterable {
        /// Describes the file and the software that wrote it (§6.2).
        case warcinfo
        /// An HTTP request as sent (§6.4).
        case request
        /// An HTTP response as received (§6.3).
        case response
        /// A response whose payload is not stored again: a `304`, or a payload already archived (§6.7).
        case revisit
    }

    /// The record's type (`WARC-Type`).
    public let kind: Kind
    /// `WARC-Record-ID`, with its angle brackets: `<urn:uuid:…>`.
    public let id: String
    /// `WARC-Date`.
    public let date: WARCDate
    /// Every header field, in the order written, from `WARC-Type` to `Content-Length` (read back
    /// from ``head``).
    public var fields: [WARCField] {
        Self.fields(ofHead: self.head)
    }
    /// The version line and header fields, with the blank line that ends them: what comes before
    /// the block.
    public let head: [UInt8]
    /// The record's block: `Content-Length` bytes.
    public let block: [UInt8]
    /// `WARC-Payload-Digest` when the record has one (a response with a payload).
    public let payloadDigest: String?

    /// A record of `kind` whose block is `block`.
    ///
    /// The fields are written in this order: `WARC-Type`, `WARC-Record-ID`, `WARC-Date`,
    /// `WARC-Target-URI` when given (bare, never in `<>`: WARC 1.1 §5.2 dropped them, and pywb
    /// rejects them), then `fields` as given, `Content-Type` when given, `WARC-Payload-Digest` of
    /// `block[payloadStart...]` when `payloadStart` is given, `WARC-Block-Digest` and
    /// `Content-Length`.
    ///
    /// - Throws: ``WARCError/Kind/invalidField`` when a name or value cannot be a WARC header
    ///   field (a CR, LF or NUL, for instance a target URI with a line break in it).
    public init(
        kind: Kind,
        id: String = WARCRecord.newID(),
        date: WARCDate,
        targetURI: String? = nil,
        contentType: String? = nil,
        block: [UInt8],
        payloadStart: Int? = nil,
        digest: WARCDigest = .sha1,
        fields: [WARCField] = []
    ) throws {
        try self.init(
            kind: kind, id: id, date: date, targetURI: targetURI, contentType: contentType, block: block,
            payloadStart: payloadStart, digest: digest, fields: fields, payloadDigest: nil, blockDigest: nil)
    }

    /// As the public initializer, with the digests given where they are known already
    /// (``WARCDigest/label(of:)`` of `block[payloadStart...]` and of `block`, hashed on the engine
    /// thread).
    init(
        kind: Kind, id: String = WARCRecord.newID(), date: WARCDate, targetURI: String?, contentType: String?,
        block: [UInt8], payloadStart: Int?, digest: WARCDigest, fields: [WARCField], payloadDigest known: String?,
        blockDigest knownBlock: String?
    ) throws {
        // The head is written as bytes here, once: a record's fields as Strings, checked and
        // serialized later, cost more than the rest of archiving but compression.
        var head = Head(capacity: 384 + (targetURI?.utf8.count ?? 0))
        head.append("WARC-Type", kind.rawValue)
        try head.append("WARC-Record-ID", checking: id)
        head.append("WARC-Date", bytes: date.warcBytes)
        if let targetURI {
            try head.append("WARC-Target-URI", checking: targetURI)
        }
        for field in fields {
            try head.append(field)
        }
        if let contentType {
            try head.append("Content-Type", checking: contentType)
        }
        var payloadDigest: String?
        if let payloadStart {
            let start = min(max(payloadStart, 0), block.count)
            let digestText = known ?? digest.label(of: block[start...])
            payloadDigest = digestText
            try head.append("WARC-Payload-Digest", checking: digestText)
        }
        try head.append("WARC-Block-Digest", checking: knownBlock ?? digest.label(of: block))
        head.append("Content-Length", String(block.count))
        head.bytes.appendLiteral("\r\n")
        self.kind = kind
        self.id = id
        self.date = date
        self.head = head.bytes
        self.block = block
        self.payloadDigest = payloadDigest
    }

    /// A record head being written: `WARC/1.1`, then `Name: value` lines, each checked as
    /// ``WARCField/isValid`` checks one.
    private struct Head {
        var bytes: [UInt8] = []

        init(capacity: Int) {
            self.bytes.reserveCapacity(capacity)
            self.bytes.appendLiteral("WARC/1.1\r\n")
        }

        /// A field whose name and value are ours and valid (no check).
        mutating func append(_ name: StaticString, _ value: String) {
            self.bytes.appendLiteral(name)
            self.bytes.appendLiteral(": ")
            self.bytes.appendUTF8(value)
            self.bytes.appendLiteral("\r\n")
        }

        mutating func append(_ name: StaticString, bytes value: [UInt8]) {
            self.bytes.appendLiteral(name)
            self.bytes.appendLiteral(": ")
            self.bytes += value
            self.bytes.appendLiteral("\r\n")
        }

        /// A field whose value is checked. - Throws: ``WARCError/Kind/invalidField`` naming it.
        mutating func append(_ name: StaticString, checking value: String) throws(WARCError) {
            var value = value
            guard value.withUTF8(WARCField.isValidValue) else {
                throw WARCError.invalidField(String(describing: name))
            }
            self.append(name, value)
        }

        /// A caller's field, name and value checked.
        mutating func append(_ field: WARCField) throws(WARCError) {
            guard field.isValid else {
                throw WARCError.invalidField(field.name)
            }
            self.bytes.appendUTF8(field.name)
            self.bytes.appendLiteral(": ")
            self.bytes.appendUTF8(field.value)
            self.bytes.appendLiteral("\r\n")
        }
    }

    /// The fields of a head this type wrote: `Name: value` lines after the version line.
    private static func fields(ofHead head: [UInt8]) -> [WARCField] {
        var fields: [WARCField] = []
        for line in head.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            // Names have no colon; a value starts after the colon and one space.
            guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else {
                continue
            }
            let valueStart = min(colon + 2, text.endIndex)
            fields.append(
                WARCField(
                    String(decoding: text[..<colon], as: UTF8.self),
                    String(decoding: text[valueStart...], as: UTF8.self)))
        }
        return fields
    }

    /// The value of the first field named `name` (compared without regard to case).
    public func field(_ name: String) -> String? {
        self.fields.first { $0.name.utf8.elementsEqual(name.utf8) { $0.asciiLowercased == $1.asciiLowercased } }?.value
    }

    /// The two line breaks that end every record (WARC 1.1 §4), after the block.
    public static let trailer: [UInt8] = Array("\r\n\r\n".utf8)

    /// The whole record as written uncompressed: ``head``, ``block``, ``trailer``.
    public var serialized: [UInt8] { self.head + self.block + Self.trailer }

    /// A new `WARC-Record-ID`: `<urn:uuid:…>` with a random (version 4) UUID in lower case.
    public static func newID() -> String {
        var (high, low) = Self.randomPool.withLock { $0.take16() }
        // Version 4 and the RFC 4122 variant, in bytes 6 and 8 (big-endian order, as written).
        high = high & ~(0xF000 as UInt64) | 0x4000
        low = low & ~(0xC000_0000_0000_0000 as UInt64) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 47) { text in
            let digits: StaticString = "0123456789abcdef"
            let prefix: StaticString = "<urn:uuid:"
            var count = 0
            for index in 0..<prefix.utf8CodeUnitCount {
                text[count] = prefix.utf8Start[index]
                count += 1
            }
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[count] = UInt8(ascii: "-")
                    count += 1
                }
                let byte = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64(56 - 8 * (index % 8)))
                text[count] = digits.utf8Start[Int(byte >> 4)]
                text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                count += 2
            }
            text[count] = UInt8(ascii: ">")
            return count + 1
        }
    }

    /// The system's random bytes, drawn 4 KiB at a time: a draw per ID cost a system call each.
    private static let randomPool = Mutex(RandomPool())

    private struct RandomPool {
        private var bytes: [UInt8] = []
        private var next = 0

        /// The next 16 bytes, as two numbers read big-endian.
        mutating func take16() -> (UInt64, UInt64) {
            if self.next + 16 > self.bytes.count {
                self.bytes = [UInt8](unsafeUninitializedCapacity: 4096) { buffer, count in
                    Self.fill(UnsafeMutableRawBufferPointer(buffer))
                    count = 4096
                }
                self.next = 0
            }
            defer { self.next += 16 }
            return self.bytes.withUnsafeBytes { bytes in
                (
                    UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: self.next, as: UInt64.self)),
                    UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: self.next + 8, as: UInt64.self))
                )
            }
        }

        /// One read of the kernel's source (`/dev/urandom`); where it cannot be read, the
        /// standard library's generator, 8 bytes a draw.
        private static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                close(descriptor)
                if count == buffer.count {
                    return
                }
            }
            var generator = SystemRandomNumberGenerator()
            for offset in stride(from: 0, to: buffer.count, by: 8) {
                buffer.storeBytes(of: generator.next() as UInt64, toByteOffset: offset, as: UInt64.self)
            }
        }
    }
}

/// One WARC header field: a name and a value, written `Name: value`.
public struct WARCField: Sendable, Hashable {
    /// The field's name, e.g. `WARC-IP-Address`.
    public let name: String
    /// The field's value, written as UTF-8 (WARC 1.1 §4 allows UTF-8 in values).
    public let value: String

    /// The field `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the grammar of WARC 1.1 §4 can carry the field: a name of visible ASCII with no
    /// colon, a value without CR, LF or NUL (so no field can smuggle another in).
    var isValid: Bool {
        var name = self.name
        var value = self.value
        // Over contiguous bytes: a String's `utf8` view is read a byte at a time.
        return !name.isEmpty
            && name.withUTF8 { $0.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") } }
            && value.withUTF8(Self.isValidValue)
    }

    /// Whether a value's bytes hold no CR, LF or NUL.
    static func isValidValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 != 0x0D && $0 != 0x0A && $0 != 0 }
    }
}
