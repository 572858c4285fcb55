import Foundation

/// One HTTP request and its response as they went over the wire: what an archive (WARC) keeps.
/// Gathered only when asked for (``TransferDetails/Kinds/exchanges``); a result carries every
/// exchange of its transfer, each redirect hop and each attempt that got an answer, in
/// ``TransferDetails/exchanges``.
///
/// The bytes are as sent and received: the request head as libcurl wrote it, the status line and
/// header lines as the server sent them (order, repeats, case and bytes kept), and the body with
/// its content coding (a gzip answer stays gzip) and without its transfer coding (libcurl removes
/// the chunk framing). Over HTTP/2, libcurl hands both heads over in HTTP/1 form: the request line
/// and status line say `HTTP/2`, the field names are lower case.
public struct Exchange: Sendable {
    /// Why a response's body is shorter than what the server meant to send.
    public enum Truncation: String, Sendable, Hashable {
        /// The body reached the size limit.
        case length
        /// The attempt ran out of time.
        case time
        /// The connection broke off.
        case disconnect
        /// Another failure cut it short.
        case unspecified
    }

    /// The URL this hop asked for.
    public var url: String
    /// When the request was sent.
    public var date: Date
    /// The request line and header lines as sent, each with its CRLF, and the blank line.
    public var requestHead: Data
    /// The request body as sent (empty when there was none).
    public var requestBody: Data
    /// The status line and header lines as received, each with its line break, and the blank line.
    public var responseHead: Data
    /// The body as received: content coding kept, transfer coding removed.
    public var body: Data
    /// The address the response came from (`CURLINFO_PRIMARY_IP`), when libcurl names one.
    public var address: String?
    /// The HTTP version the response came over.
    public var httpVersion: HTTPVersion
    /// Why ``body`` is incomplete, when it is.
    public var truncated: Truncation?
    /// The TLS version the response came over, as OpenSSL names it (`TLSv1.3`); `nil` over plain
    /// HTTP or when not gathered (``TransferDetails/Kinds/tls``).
    public var tlsVersion: String?

    /// A hash of ``body``, when the engine was asked for one
    /// (``Engine/Configuration/exchangeBodyHash``): computed on the engine thread as the exchange
    /// is kept, so that an archive's writer, the slower stage, need not.
    public var bodyHash: BodyHash?

    /// A hash of an exchange's body.
    public struct BodyHash: Sendable, Hashable {
        /// The hash functions the engine can apply.
        public enum Algorithm: String, Sendable, Hashable {
            /// SHA-1: 20 bytes.
            case sha1
            /// SHA-256: 32 bytes.
            case sha256
        }

        /// The function.
        public let algorithm: Algorithm
        /// Its value over ``Exchange/body``.
        public let bytes: [UInt8]
        /// Its value over ``Exchange/responseHead`` followed by ``Exchange/body``: a WARC response
        /// record's block digest, when the record's head is the head as received.
        public let messageBytes: [UInt8]?

        /// `algorithm`'s hash of `body`, and of `head` followed by `body` when a head is given.
        public init(_ algorithm: Algorithm, of body: Data, head: Data? = nil) {
            self.algorithm = algorithm
            (self.bytes, self.messageBytes) = Digest.hashes(algorithm, of: body, head: head)
        }
    }

    /// Creates an exchange (the engine does this; public for tests and custom transports).
    public init(
        url: String, date: Date, requestHead: Data, requestBody: Data = Data(), responseHead: Data, body: Data,
        address: String? = nil, httpVersion: HTTPVersion = .http1_1, truncated: Truncation? = nil,
        tlsVersion: String? = nil
    ) {
        self.url = url
        self.date = date
        self.requestHead = requestHead
        self.requestBody = requestBody
        self.responseHead = responseHead
        self.body = body
        self.address = address
        self.httpVersion = httpVersion
        self.truncated = truncated
        self.tlsVersion = tlsVersion
    }

    /// The truncation a failure of `kind` means for a body that had started.
    public static func truncation(for kind: FetchError.Kind) -> Truncation {
        switch kind {
        case .tooLarge: .length
        case .timeout: .time
        case .transport: .disconnect
        default: .unspecified
        }
    }
}
