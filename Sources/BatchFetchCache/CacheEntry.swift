import BatchFetch
import Foundation

/// One stored response, as the store holds it.
struct CacheEntry: Sendable {
    /// `GET <url>`.
    var key: String
    /// The request's values of the header fields the response's `Vary` names (see ``CachePolicy/varyKey(names:request:defaults:)``).
    var vary: String
    var status: Int
    var effectiveURL: String
    /// The stored response header fields, as a raw CRLF-separated block.
    var headers: [UInt8]
    var body: Data
    /// Wall-clock seconds since 1970 when the request went out and when the response arrived
    /// (RFC 9111 §4.2.3's `request_time` and `response_time`).
    var requestTime: Double
    var responseTime: Double

    var responseHeaders: HTTPHeaders { HTTPHeaders(raw: self.headers) }
}
