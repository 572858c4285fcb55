/// Why a request did not produce a response a caller can use.
///
/// Every failure, whether from input, the network or the server, is one of these, with a stable
/// ``Kind`` for summaries and machine-readable records and a ``message`` that says what happened
/// and, where it helps, what to do. libcurl's own error text is part of the message; its numeric
/// codes never are.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable category of failure. Its ``rawValue`` appears in JSON records.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The URL is not an absolute URL batchfetch can send (empty, malformed, too long, no host).
        public static let invalidURL = Kind(rawValue: "invalidURL")
        /// The URL's scheme, or a redirect's, is not `http` or `https`.
        public static let unsupportedScheme = Kind(rawValue: "unsupportedScheme")
        /// A header field is malformed or carries CR/LF (header injection).
        public static let invalidHeader = Kind(rawValue: "invalidHeader")
        /// A request line cannot be sent as it is: not a JSON object, a field unknown or of the
        /// wrong type, a body that cannot be decoded or read. The message names the field.
        public static let invalidRequest = Kind(rawValue: "invalidRequest")
        /// The host name could not be resolved.
        public static let dnsFailure = Kind(rawValue: "dnsFailure")
        /// No connection could be made (refused, unreachable).
        public static let connectFailed = Kind(rawValue: "connectFailed")
        /// The host failed to connect or answer several times in a row and a probe confirmed it:
        /// the request was not sent (or not sent again). The message says how many failures, over
        /// how long.
        public static let hostUnreachable = Kind(rawValue: "hostUnreachable")
        /// The connect timeout, the per-attempt timeout or the low-speed limit was hit.
        public static let timeout = Kind(rawValue: "timeout")
        /// The TLS handshake or certificate verification failed.
        public static let tlsFailure = Kind(rawValue: "tlsFailure")
        /// The body is larger than the configured maximum.
        public static let tooLarge = Kind(rawValue: "tooLarge")
        /// More redirects than allowed.
        public static let tooManyRedirects = Kind(rawValue: "tooManyRedirects")
        /// The connection broke mid-exchange: reset, closed early, truncated body, nothing received.
        public static let transport = Kind(rawValue: "transport")
        /// The server's response was not valid HTTP.
        public static let invalidResponse = Kind(rawValue: "invalidResponse")
        /// The status is not one the caller accepts (see the decoding pipeline's status policy).
        public static let httpStatus = Kind(rawValue: "httpStatus")
        /// The request was cancelled before it completed.
        public static let cancelled = Kind(rawValue: "cancelled")
        /// The run was stopped (a signal, a failed output) before the request's response arrived:
        /// it may not have been sent, or the server may have acted on it without its answer being
        /// seen. Written in place of a record whose later neighbours completed.
        public static let interrupted = Kind(rawValue: "interrupted")
        /// The body is empty where a JSON document was expected.
        public static let emptyBody = Kind(rawValue: "emptyBody")
        /// The body is not valid JSON (truncated, malformed, invalid UTF-8, nested too deeply).
        public static let invalidJSON = Kind(rawValue: "invalidJSON")
        /// The `Content-Type` is not one the caller accepts (e.g. an HTML error page).
        public static let wrongContentType = Kind(rawValue: "wrongContentType")
        /// The envelope key path is not in the document.
        public static let missingKey = Kind(rawValue: "missingKey")
        /// The value at the key path has an unexpected type (a string where a list was expected).
        public static let unexpectedShape = Kind(rawValue: "unexpectedShape")
        /// The JSON is valid but does not match the typed model.
        public static let decodingFailed = Kind(rawValue: "decodingFailed")
        /// The engine configuration is invalid.
        public static let invalidConfiguration = Kind(rawValue: "invalidConfiguration")
        /// `--cache-mode only` (the HTTP cache's offline mode) and the cache holds no
        /// response for the request: nothing was sent.
        public static let notCached = Kind(rawValue: "notCached")
        /// The body could not be saved to its file (disk full, no permission, a name two records
        /// share); nothing partial is left under the file's name.
        public static let fileWrite = Kind(rawValue: "fileWrite")
        /// Anything else libcurl reported; the message carries its text.
        public static let other = Kind(rawValue: "other")

        public var description: String { self.rawValue }
    }

    /// The category of failure.
    public let kind: Kind
    /// What happened, for a person to read. Never contains credentials.
    public let message: String
    /// The HTTP status, for ``Kind/httpStatus`` errors, and for a transfer that failed after its
    /// status line arrived (a timeout mid-body, a body over the limit, a file not written).
    public let status: Int?
    /// The first bytes of the offending body, sanitised to printable text, when there was one.
    public let snippet: String?
    /// The attempt timed out before it had a connection (a connect timeout): nothing reached the
    /// server, which says something of the host (``HostHealth``) that a slow answer does not.
    var timedOutConnecting = false

    /// Creates an error.
    public init(kind: Kind, message: String, status: Int? = nil, snippet: String? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.snippet = snippet
    }

    /// An unacceptable HTTP status, with the start of the body to show what the server said.
    public static func httpStatus(_ status: Int, snippet: String?) -> FetchError {
        FetchError(kind: .httpStatus, message: "HTTP status \(status)", status: status, snippet: snippet)
    }

    /// The request was cancelled.
    public static let cancelled = FetchError(kind: .cancelled, message: "cancelled before completion")

    /// The run was stopped before the request's response arrived (``Kind/interrupted``).
    public static let interrupted = FetchError(
        kind: .interrupted,
        message: "the run stopped before the response arrived; the server may or may not have acted on it")

    public var description: String { "\(self.kind): \(self.message)" }
}
