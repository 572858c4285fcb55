import Foundation

/// Which `Content-Type`s a decoder accepts.
public struct ContentTypePolicy: Sendable, Hashable {
    /// Accepted media types (lower-case, without parameters); `*/*+json` matches any `+json` type.
    public var accepted: Set<String>
    /// Whether a response without `Content-Type` is accepted (its body is still validated as JSON).
    public var acceptsMissing: Bool

    /// Creates a policy.
    public init(accepted: Set<String>, acceptsMissing: Bool = true) {
        self.accepted = accepted
        self.acceptsMissing = acceptsMissing
    }

    /// JSON media types: `application/json`, `text/json` and any `+json` suffix (RFC 6839).
    public static let json = ContentTypePolicy(accepted: ["application/json", "text/json", "*/*+json"])

    /// Anything goes.
    public static let any = ContentTypePolicy(accepted: ["*/*"])

    /// Whether `header` (a `Content-Type` value, or `nil` when absent) is accepted.
    public func accepts(_ header: String?) -> Bool {
        guard let header else {
            return self.acceptsMissing
        }
        if self.accepted.contains("*/*") {
            return true
        }
        let mediaType =
            header.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        if self.accepted.contains(mediaType) {
            return true
        }
        return self.accepted.contains("*/*+json") && mediaType.hasSuffix("+json")
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
