import Foundation

extension WARCRecord {
    /// What a `request` or `response` record may say beyond its block.
    public struct ExchangeOptions: Sendable {
        /// `WARC-Concurrent-To`: on a request, the response's record ID (WARC 1.1 §5.7).
        public var concurrentTo: String?
        /// `WARC-IP-Address`: the address the exchange was served from.
        public var ipAddress: String?
        /// `WARC-Protocol` fields, one per protocol, e.g. `h2` and `tls/1.3` (a field proposed in
        /// iipc/warc-specifications, as browsertrix-crawler writes it; readers keep unknown fields).
        public var protocols: [String]
        /// `WARC-Truncated`: why the block is shorter than what was sent, when it is.
        public var truncated: WARCTruncation?
        /// The hash of both digests.
        public var digest: WARCDigest
        /// Further fields, written after the ones above.
        public var fields: [WARCField]

        /// Options with nothing beyond the digests, SHA-1 unless `digest` says otherwise.
        public init(
            concurrentTo: String? = nil,
            ipAddress: String? = nil,
            protocols: [String] = [],
            truncated: WARCTruncation? = nil,
            digest: WARCDigest = .sha1,
            fields: [WARCField] = []
        ) {
            self.concurrentTo = concurrentTo
            self.ipAddress = ipAddress
            self.protocols = protocols
            self.truncated = truncated
            self.digest = digest
            self.fields = fields
        }

        var warcFields: [WARCField] {
            var all: [WARCField] = []
            if let concurrentTo = self.concurrentTo {
                all.append(WARCField("WARC-Concurrent-To", concurrentTo))
            }
            if let ipAddress = self.ipAddress {
                all.append(WARCField("WARC-IP-Address", ipAddress))
            }
            all += self.protocols.map { WARCField("WARC-Protocol", $0) }
            if let truncated = self.truncated {
                all.append(WARCField("WARC-Truncated", truncated.rawValue))
            }
            return all + self.fields
        }
    }

    /// A `response` record for `targetURI`: the status line and header fields as received, the
    /// body as stored (see ``HTTPBlock``), `WARC-Payload-Digest` of the body.
    ///
    /// - Throws: ``WARCError/Kind/invalidField`` when `targetURI` or a field cannot be a WARC field.
    public static func response(
        targetURI: String,
        date: WARCDate,
        statusLine: [UInt8],
        headerBytes: [UInt8],
        body: some Collection<UInt8>,
        options: ExchangeOptions = ExchangeOptions()
    ) throws -> WARCRecord {
        try Self.response(
            targetURI: targetURI, date: date, statusLine: statusLine, headerBytes: headerBytes, body: body,
            options: options, payloadDigest: nil, received: nil)
    }

    /// As the public builder, with the body's digest when it is known already, and the digest of
    /// the head as `received` followed by the body, which is the block's when the block's head
    /// is that head byte for byte (no field renamed, no status line rewritten).
    static func response(
        targetURI: String, date: WARCDate, statusLine: [UInt8], headerBytes: [UInt8], body: some Collection<UInt8>,
        options: ExchangeOptions, payloadDigest: String?, received: (head: Data, digest: String)?
    ) throws -> WARCRecord {
        let block = HTTPBlock.response(statusLine: statusLine, headerBytes: headerBytes, body: body)
        let blockDigest = received.flatMap { received in
            block.bytes.withUnsafeBytes { bytes in
                received.head.withUnsafeBytes { head in
                    head.count == block.payloadStart && Self.startsWith(bytes, head)
                }
            } ? received.digest : nil
        }
        return try WARCRecord(
            kind: .response, date: date, targetURI: targetURI, contentType: "application/http;msgtype=response",
            block: block.bytes, payloadStart: block.payloadStart, digest: options.digest, fields: options.warcFields,
            payloadDigest: payloadDigest, blockDigest: blockDigest)
    }

    /// Whether `bytes` starts with `prefix` (memcmp: the generic comparison went a byte at a time).
    private static func startsWith(_ bytes: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, let start = prefix.baseAddress else {
            return prefix.isEmpty
        }
        return bytes.count >= prefix.count && memcmp(base, start, prefix.count) == 0
    }

    /// A `request` record for `targetURI`: `METHOD target HTTP/1.1`, the header field lines as
    /// sent, and the body sent. Give the response's ID as `options.concurrentTo` to link the two.
    ///
    /// - Throws: ``WARCError/Kind/invalidField`` when `targetURI` or a field cannot be a WARC field.
    public static func request(
        targetURI: String,
        date: WARCDate,
        method: String,
        target: String,
        headerBytes: [UInt8],
        body: [UInt8] = [],
        options: ExchangeOptions = ExchangeOptions()
    ) throws -> WARCRecord {
        try Self.request(
            targetURI: targetURI, date: date, requestLine: Array("\(method) \(target) HTTP/1.1".utf8),
            headerBytes: headerBytes, body: body, options: options)
    }

    /// As the public builder, with the request line given as bytes (`GET /a HTTP/1.1`).
    static func request(
        targetURI: String, date: WARCDate, requestLine: [UInt8], headerBytes: [UInt8], body: [UInt8],
        options: ExchangeOptions
    ) throws -> WARCRecord {
        let block = HTTPBlock.request(line: requestLine, headerBytes: headerBytes, body: body)
        return try WARCRecord(
            kind: .request,
            date: date,
            targetURI: targetURI,
            contentType: "application/http;msgtype=request",
            block: block.bytes,
            digest: options.digest,
            fields: options.warcFields
        )
    }
}

/// Why a record's block is shorter than what was sent (`WARC-Truncated`, WARC 1.1 §5.13).
public enum WARCTruncation: String, Sendable, CaseIterable {
    /// The block reached a size limit.
    case length
    /// The transfer ran out of time.
    case time
    /// The connection broke off.
    case disconnect
    /// Another reason.
    case unspecified
}
