import NIOCore
import Synchronization

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

    init(catalogue: Catalogue, resultCap: Int, imageBase: String? = nil, limit: Int, validators: Bool) {
        self.renderer = DocumentRenderer(catalogue: catalogue, resultCap: resultCap, imageBase: imageBase)
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
