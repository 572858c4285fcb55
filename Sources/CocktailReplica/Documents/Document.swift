import NIOCore
import NIOHTTP1

/// A response body with its `200 OK` headers, both built once: a JSON document or an image.
struct Document: Sendable {
    /// The body bytes.
    let body: ByteBuffer
    /// The `Content-Type`.
    let contentType: String
    /// `Content-Type`, the body's `Content-Length` and, with validators, its `ETag` and `Last-Modified`.
    let headers: HTTPHeaders
    /// `HTTP/1.1 200 OK` with ``headers``: the common keep-alive case reuses this value, which
    /// saves allocating a response head (a class-backed value in NIO) per request.
    let keepAliveHead: HTTPResponseHead
    /// The body's entity tag; `nil` when the replica sends no validators.
    let entityTag: String?

    /// The `Content-Type` of the API's documents.
    static let jsonContentType = "application/json"

    /// A JSON document, tagged with the hash of its body when `validators` is set.
    init(body: ByteBuffer, validators: Bool) {
        let tag = validators ? Validators.entityTag(for: body.readableBytesView) : nil
        self.init(body: body, contentType: Self.jsonContentType, entityTag: tag)
    }

    /// A body of any type; `entityTag` `nil` sends no validators.
    init(body: ByteBuffer, contentType: String, entityTag: String?) {
        self.body = body
        self.contentType = contentType
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.readableBytes))])
        if let entityTag {
            headers.add(name: "ETag", value: entityTag)
            headers.add(name: "Last-Modified", value: Validators.lastModified)
        }
        self.entityTag = entityTag
        self.headers = headers
        self.keepAliveHead = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
    }

    /// Whether this is one of the API's JSON documents, to which the JSON-specific faults apply.
    var isJSON: Bool {
        self.contentType == Self.jsonContentType
    }
}
