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
        var documents: [Route: ByteBuffer] = [:]
        var bytes = 0
    }

    private let renderer: DocumentRenderer
    private let limit: Int
    private let cache = Mutex(Cache())

    init(catalogue: Catalogue, resultCap: Int, limit: Int) {
        self.renderer = DocumentRenderer(catalogue: catalogue, resultCap: resultCap)
        self.limit = limit
    }

    /// The body for `route` (`.random` resolved already).
    func document(for route: Route) -> ByteBuffer {
        if let cached = self.cache.withLock({ $0.documents[route] }) {
            return cached
        }
        let buffer = ByteBuffer(bytes: self.renderer.render(route))
        self.cache.withLock { cache in
            guard cache.documents[route] == nil, cache.bytes + buffer.readableBytes <= self.limit else { return }
            cache.documents[route] = buffer
            cache.bytes += buffer.readableBytes
        }
        return buffer
    }
}
