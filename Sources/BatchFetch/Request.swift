/// One HTTP request to fetch: a URL, a method, header fields and an optional body.
///
/// Requests are values; two requests with the same method, URL, headers and body are the same
/// request, which is what the engine's de-duplication keys on.
public struct Request: Sendable, Hashable {
    /// An HTTP method: any RFC 9110 token, sent as given (methods are case-sensitive, so `put` is
    /// sent as `put`, as curl sends it, and is not `PUT`).
    public struct Method: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        /// The method `rawValue` names; `nil` unless it is a token (letters, digits and
        /// ``!#$%&'*+-.^_`|~``): a space, CR or LF would break the request line.
        public init?(rawValue: String) {
            guard !rawValue.isEmpty, rawValue.utf8.allSatisfy(HeaderField.isTokenByte) else {
                return nil
            }
            self.rawValue = rawValue
        }

        private init(known: String) {
            self.rawValue = known
        }

        public static let get = Method(known: "GET")
        public static let head = Method(known: "HEAD")
        public static let post = Method(known: "POST")
        public static let put = Method(known: "PUT")
        public static let delete = Method(known: "DELETE")
        public static let patch = Method(known: "PATCH")
        public static let options = Method(known: "OPTIONS")
        public static let trace = Method(known: "TRACE")

        /// Whether sending the request twice has the same effect as sending it once (RFC 9110 §9.2.2),
        /// which decides whether a failure after the request may have been sent is retried. Only
        /// the methods RFC 9110 defines so: any other (`PATCH`, `PROPFIND`, `put`) is taken for a
        /// write that must not be repeated.
        public var isIdempotent: Bool {
            switch self.rawValue {
            case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
            default: false
            }
        }

        public var description: String { self.rawValue }

        /// Why `text` cannot be a method, for an error message.
        package static func problem(with text: String) -> String {
            "'\(text.debugDescription.dropFirst().dropLast())' is not a method (a method is one token: "
                + "letters, digits and !#$%&'*+-.^_`|~, no space)"
        }
    }

    /// The absolute `http` or `https` URL.
    public var url: String
    /// The caller's own number for the request (the command's line in the whole input), handed
    /// back on the results that this request's transfer answered (``FetchResult/sharedWithTag``).
    /// Not part of the request's identity: it is neither compared nor hashed. (Declared here, its
    /// spare byte beside ``method``'s, it leaves a request 8 bytes larger, not 16.)
    package var tag: Int?
    /// The method; `GET` unless set.
    public var method: Method
    /// Header fields sent in addition to the engine's configured ones, in order.
    public var headers: [HeaderField]
    /// The request body, sent with `POST`, `PUT` and `PATCH`.
    public var body: [UInt8]?
    /// A file whose bytes are the body, read as they are sent and never held whole in memory, so
    /// a body may be larger than memory; read again for each attempt. A request has a ``body`` or
    /// a body file, not both. A file that cannot be opened fails the request with
    /// ``FetchError/Kind/invalidRequest``.
    public var bodyFile: String?

    /// Creates a request.
    public init(
        _ url: String, method: Method = .get, headers: [HeaderField] = [], body: [UInt8]? = nil,
        bodyFile: String? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }

    /// Whether the request sends a body: ``body`` or ``bodyFile``.
    var hasBody: Bool {
        self.body != nil || self.bodyFile != nil
    }
}

extension Request {
    /// Method, URL, header fields and body (bytes or file): what de-duplication keys on; ``tag``
    /// is left out.
    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.url == rhs.url && lhs.method == rhs.method && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.bodyFile == rhs.bodyFile
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.url)
        hasher.combine(self.method)
        hasher.combine(self.headers)
        hasher.combine(self.body)
        hasher.combine(self.bodyFile)
    }
}

extension Request {
    /// Checks what can be checked before any byte is sent: the URL's scheme, form and length, an
    /// international host name's ASCII form (see ``IDNA``), the header fields, and that there is
    /// at most one body.
    ///
    /// libcurl would reject most of these too, but only after the request took a transfer slot;
    /// checking here turns each into an error record in place and keeps bad input off the wire.
    /// - Returns: the reason the request cannot be sent, or `nil`.
    public func validate(maxURLLength: Int = 8192) -> FetchError? {
        // Over the contiguous UTF-8 bytes: this runs for every submitted request.
        var hasNonASCII = false
        let problem =
            self.url.utf8.withContiguousStorageIfAvailable {
                Self.urlProblem($0, maxURLLength: maxURLLength, hasNonASCII: &hasNonASCII)
            } ?? Self.urlProblem(Array(self.url.utf8), maxURLLength: maxURLLength, hasNonASCII: &hasNonASCII)
        if let problem {
            return self.error(for: problem, maxURLLength: maxURLLength)
        }
        if hasNonASCII {
            do throws(FetchError) {
                _ = try IDNA.asciiURL(self.url)
            } catch {
                return error
            }
        }
        for field in self.headers {
            if let error = field.validationError() {
                return error
            }
        }
        if self.body != nil && self.bodyFile != nil {
            return FetchError(kind: .invalidRequest, message: "a request has a body or a body file, not both")
        }
        return nil
    }

    private enum URLProblem {
        case empty, tooLong, controlCharacter, noScheme, notAbsolute, unsupportedScheme(String), noSlashes, noHost
    }

    /// What is wrong with the URL `bytes`, if anything; sets `hasNonASCII` when a byte is over 0x7F.
    private static func urlProblem<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, maxURLLength: Int, hasNonASCII: inout Bool
    ) -> URLProblem? where Bytes.Index == Int {
        if bytes.isEmpty {
            return .empty
        }
        if bytes.count > maxURLLength {
            return .tooLong
        }
        // One pass finds both: an all-ASCII URL pays nothing for the non-ASCII test.
        if bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            if bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
                return .controlCharacter
            }
            hasNonASCII = true
        }
        guard let schemeEnd = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            return .noScheme
        }
        let scheme = bytes[bytes.startIndex..<schemeEnd]
        var isHTTP = scheme.count == 4 || scheme.count == 5
        for (offset, expected) in "https".utf8.prefix(scheme.count).enumerated()
        where scheme[scheme.startIndex + offset].asciiLowercased != expected {
            isHTTP = false
        }
        guard isHTTP else {
            let name = String(decoding: scheme, as: UTF8.self).lowercased()
            if name.isEmpty || !name.utf8.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) {
                return .notAbsolute
            }
            return .unsupportedScheme(name)
        }
        var position = schemeEnd + 1
        guard bytes.endIndex - position >= 2, bytes[position] == UInt8(ascii: "/"),
            bytes[position + 1] == UInt8(ascii: "/")
        else {
            return .noSlashes
        }
        position += 2
        // The host is what follows the last '@' of the authority; it must not be empty or start a port.
        let end = endOfAuthority(in: bytes, from: position)
        let hostStart = bytes[position..<end].lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? position
        if hostStart == end || bytes[hostStart] == UInt8(ascii: ":") {
            return .noHost
        }
        return nil
    }

    private func error(for problem: URLProblem, maxURLLength: Int) -> FetchError {
        switch problem {
        case .empty:
            FetchError(kind: .invalidURL, message: "empty URL")
        case .tooLong:
            FetchError(
                kind: .invalidURL,
                message: "URL is \(self.url.utf8.count) bytes long, over the limit of \(maxURLLength)"
            )
        case .controlCharacter:
            FetchError(kind: .invalidURL, message: "URL contains a space or a control character")
        case .noScheme:
            FetchError(kind: .invalidURL, message: "not an absolute URL (no scheme): \(self.url.redactedURL)")
        case .notAbsolute:
            FetchError(kind: .invalidURL, message: "not an absolute URL: \(self.url.redactedURL)")
        case .unsupportedScheme(let scheme):
            FetchError(
                kind: .unsupportedScheme,
                message: "scheme '\(scheme)' is not allowed; only http and https are fetched"
            )
        case .noSlashes:
            FetchError(kind: .invalidURL, message: "URL has no '//' after the scheme: \(self.url.redactedURL)")
        case .noHost:
            FetchError(kind: .invalidURL, message: "URL has no host: \(self.url.redactedURL)")
        }
    }
}

extension String {
    /// The URL with any user-info password and credential-like query values (`key`, `token`,
    /// `api_key`, `apikey`, `access_token`, `password`, `secret`, `sig`, `signature`,
    /// `client_secret`, `refresh_token`, `X-Amz-Signature`, `X-Amz-Security-Token`) replaced by
    /// `***`, for logs, records and error messages.
    ///
    /// Works on UTF-8 bytes and returns `self` untouched (no copy) when there is nothing to hide,
    /// which is the common case on the per-record path.
    public var redactedURL: String {
        let spans =
            self.utf8.withContiguousStorageIfAvailable { String.secretSpans(in: $0) }
            ?? String.secretSpans(in: Array(self.utf8))
        guard !spans.isEmpty else {
            return self
        }
        let bytes = Array(self.utf8)
        var result: [UInt8] = []
        var position = 0
        for span in spans {
            result.append(contentsOf: bytes[position..<span.lowerBound])
            result.append(contentsOf: "***".utf8)
            position = span.upperBound
        }
        result.append(contentsOf: bytes[position...])
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether a URL's bytes hold a secret (``secretSpans(in:)``): not generic, so that other
    /// modules run the code specialised here.
    package static func holdsSecret(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !Self.secretSpans(in: bytes).isEmpty
    }

    /// Byte ranges of a URL that hold secrets: the user-info password and sensitive query values.
    static func secretSpans<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> [Range<Int>]
    where Bytes.Index == Int {
        var spans: [Range<Int>] = []
        let start = bytes.startIndex
        var schemeEnd = start
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
            schemeEnd = colon + 3
        }
        let authorityEnd = endOfAuthority(in: bytes, from: schemeEnd)
        if let at = bytes[schemeEnd..<authorityEnd].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[schemeEnd..<at].firstIndex(of: UInt8(ascii: ":"))
        {
            spans.append((colon + 1 - start)..<(at - start))
        }
        guard let query = bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "?")) else {
            return spans
        }
        let end = bytes[query...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        var pairStart = query + 1
        while pairStart < end {
            let pairEnd = bytes[pairStart..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            // The length test first: most query names cannot be a sensitive one, and then no
            // String is built for them.
            if let eq = bytes[pairStart..<pairEnd].firstIndex(of: UInt8(ascii: "=")),
                eq - pairStart < Int.bitWidth, (String.sensitiveNameLengths >> (eq - pairStart)) & 1 == 1,
                String.sensitiveQueryNames.contains(String(decoding: bytes[pairStart..<eq], as: UTF8.self).lowercased())
            {
                spans.append((eq + 1 - start)..<(pairEnd - start))
            }
            pairStart = pairEnd + 1
        }
        return spans
    }

    /// Lower-case; compared without case. OAuth's client and refresh secrets, and the parts of
    /// an S3 presigned URL that sign it or carry a session's token, are credentials too.
    private static let sensitiveQueryNames: Set<String> = [
        "key", "token", "api_key", "apikey", "access_token", "password", "secret", "sig", "signature",
        "client_secret", "refresh_token", "x-amz-signature", "x-amz-security-token",
    ]
    /// Bit n set when some name in ``sensitiveQueryNames`` is n bytes long.
    private static let sensitiveNameLengths: Int = sensitiveQueryNames.reduce(0) { $0 | (1 << $1.utf8.count) }
}

/// Where the authority that starts at `start` ends: at the first '/', '?' or '#', or the end.
private func endOfAuthority<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, from start: Int) -> Int
where Bytes.Index == Int {
    var end = start
    while end < bytes.endIndex {
        let byte = bytes[end]
        if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
            break
        }
        end += 1
    }
    return end
}
