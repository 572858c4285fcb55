import Foundation

/// Which `Content-Type`s a decoder accepts.
public struct ContentTypePolicy: Sendable, Hashable {
    /// Accepted media types (lower-case, without parameters); `*/*+json` matches any `+json` type.
    public var accepted: Set<String> {
        didSet { self.acceptsApplicationJSON = self.accepted.contains("application/json") }
    }
    /// Whether a response without `Content-Type` is accepted (its body is still validated as JSON).
    public var acceptsMissing: Bool

    /// Creates a policy.
    public init(accepted: Set<String>, acceptsMissing: Bool = true) {
        self.accepted = accepted
        self.acceptsMissing = acceptsMissing
        self.acceptsApplicationJSON = accepted.contains("application/json")
    }

    /// Whether ``accepted`` holds `application/json`, the type nearly every response has: known
    /// without hashing the header (this runs for every response).
    private var acceptsApplicationJSON: Bool

    /// JSON media types: `application/json`, `text/json` and any `+json` suffix (RFC 6839).
    public static let json = ContentTypePolicy(accepted: ["application/json", "text/json", "*/*+json"])

    /// Anything goes.
    public static let any = ContentTypePolicy(accepted: ["*/*"])

    /// Whether `header` (a `Content-Type` value, or `nil` when absent) is accepted.
    public func accepts(_ header: String?) -> Bool {
        guard let header else {
            return self.acceptsMissing
        }
        if self.acceptsApplicationJSON && header == "application/json" {
            return true
        }
        // A bare accepted type, without building a lower-cased copy.
        if self.accepted.contains(header) || self.accepted.contains("*/*") {
            return true
        }
        let mediaType = Self.mediaType(of: header)
        if self.accepted.contains(mediaType) {
            return true
        }
        return self.accepted.contains("*/*+json") && mediaType.hasSuffix("+json")
    }

    /// The media type of a `Content-Type` value: what precedes any `;`, without surrounding
    /// spaces or tabs, ASCII lower-cased. Over the UTF-8 bytes: this runs for every response.
    static func mediaType(of header: String) -> String {
        var bytes = header.utf8[...]
        if let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) {
            bytes = bytes[..<semicolon]
        }
        while let first = bytes.first, first == 0x20 || first == 0x09 {
            bytes = bytes.dropFirst()
        }
        while let last = bytes.last, last == 0x20 || last == 0x09 {
            bytes = bytes.dropLast()
        }
        return String(decoding: bytes.lazy.map(\.asciiLowercased), as: UTF8.self)
    }

    /// Throws ``FetchError/Kind/wrongContentType`` unless the response's type is accepted.
    public func check(_ response: Response) throws(FetchError) {
        guard self.accepts(response.contentType) else {
            throw FetchError(
                kind: .wrongContentType,
                message: "expected JSON but the server sent '\(response.contentType ?? "no content type")'",
                status: response.status,
                snippet: Snippet.of(response.body, around: 0)
            )
        }
    }
}
