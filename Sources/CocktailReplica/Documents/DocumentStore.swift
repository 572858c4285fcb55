import NIOCore
import NIOHTTP1
import Synchronization

/// A rendered JSON document with its response headers, both built once.
struct Document: Sendable {
    /// The body bytes.
    let body: ByteBuffer
    /// `Content-Type: application/json`, the body's `Content-Length` and, with validators, its
    /// `ETag` and `Last-Modified`.
    let headers: HTTPHeaders
    /// `HTTP/1.1 200 OK` with ``headers``: the common keep-alive case reuses this value, which
    /// saves allocating a response head (a class-backed value in NIO) per request.
    let keepAliveHead: HTTPResponseHead
    /// The body's entity tag; `nil` when the replica sends no validators.
    let entityTag: String?

    init(body: ByteBuffer, validators: Bool) {
        self.body = body
        var headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", String(body.readableBytes)),
        ])
        if validators {
            let tag = Validators.entityTag(for: body.readableBytesView)
            headers.add(name: "ETag", value: tag)
            headers.add(name: "Last-Modified", value: Validators.lastModified)
            self.entityTag = tag
        } else {
            self.entityTag = nil
        }
        self.headers = headers
        self.keepAliveHead = HTTPResponseHead(version: .http1_1, status: .ok, headers: self.headers)
    }
}

/// Rendered documents, cached as `ByteBuffer`s so a response is a reference-count bump, not a render.
///
/// Thread-safe: event loop threads share one store behind a `Mutex` (held only for a dictionary
/// lookup or insert, never while rendering). Documents are rendered on first use and kept until the
/// total reaches the byte limit; beyond it they are rendered per request and not kept, so a huge
/// scale cannot exhaust memory.
final class DocumentStore: Sendable {
    private struct Cache {
        var documents: [Route: Document] = [:]
        var bytes = 0
    }

    private let renderer: DocumentRenderer
    private let limit: Int
    private let validators: Bool
    private let cache = Mutex(Cache())

    init(catalogue: Catalogue, resultCap: Int, limit: Int, validators: Bool) {
        self.renderer = DocumentRenderer(catalogue: catalogue, resultCap: resultCap)
        self.limit = limit
        self.validators = validators
    }

    /// The document for `route` (`.random` resolved already).
    func document(for route: Route) -> Document {
        if let cached = self.cache.withLock({ $0.documents[route] }) {
            return cached
        }
        let document = Document(body: ByteBuffer(bytes: self.renderer.render(route)), validators: self.validators)
        let size = document.body.readableBytes
        self.cache.withLock { cache in
            guard cache.documents[route] == nil, cache.bytes + size <= self.limit else { return }
            cache.documents[route] = document
            cache.bytes += size
        }
        return document
    }
}
