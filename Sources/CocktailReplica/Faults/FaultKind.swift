/// The kinds of fault the replica injects; the raw values are the keys of ``ReplicaStats/faults``.
public enum FaultKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The connection was closed without a response.
    case reset
    /// The full `Content-Length` was sent with part of the body, then the connection was closed.
    case truncate
    /// An error status from the configured fail statuses.
    case fail
    /// A 200 whose JSON is broken.
    case malformed
    /// A 200 with `Content-Type: text/html`.
    case wrongType
    /// A 200 with an empty body.
    case emptyBody
    /// The body was dripped slowly.
    case slow
    /// One of the first attempts of a target, failed on purpose (`failFirst`).
    case failFirst
    /// A 429 beyond the throttle rate.
    case throttle
}

extension FaultKind {
    /// Whether the fault only makes sense for the API's JSON documents (broken JSON, an HTML page
    /// where JSON was expected, the API's empty 200s); image responses are spared these.
    var isJSONSpecific: Bool {
        switch self {
        case .malformed, .wrongType, .emptyBody: true
        case .reset, .truncate, .fail, .slow, .failFirst, .throttle: false
        }
    }
}
