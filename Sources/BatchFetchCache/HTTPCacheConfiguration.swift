import BatchFetch

/// Where and how an ``Engine`` keeps responses on disk, to answer repeated requests without the
/// network or with a cheap revalidation (`--cache DIR`).
///
/// Responses are stored in one SQLite database in ``directory`` (WAL mode), keyed by method, URL
/// and the request header values the response's `Vary` names. Freshness follows RFC 9111:
/// `Cache-Control: max-age`, `no-cache`, `no-store`, `Expires`, `Age`, `Date`; a stale entry is
/// revalidated with `If-None-Match` / `If-Modified-Since`, and a `304` is answered from the store.
/// Only `GET` responses are stored, never `no-store` ones, and never for requests that carry
/// credentials (user info in the URL, a secret query value, `Authorization`, `Cookie`, …).
///
/// A directory that cannot be opened, a full disk or a write error never fails a fetch: the
/// engine reports a warning through ``onWarning`` and goes on without (storing in) the cache.
public struct HTTPCacheConfiguration: ResponseStoreConfiguration {
    /// When the cache is consulted and when the network is.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Fresh entries answer at once; stale ones are revalidated; misses are fetched and stored.
        case use
        /// Every entry is revalidated (conditional request) before use, fresh or not.
        case refresh
        /// Offline: stored entries answer, fresh or not; a miss is a ``FetchError/Kind/notCached``
        /// result; nothing is sent.
        case only
    }

    /// The directory holding the database (created if missing).
    public var directory: String
    /// How the cache is used.
    public var mode: Mode
    /// The freshness lifetime, in seconds, of responses that give none (no `max-age`, no
    /// `Expires`); `nil` = such responses are stale at once (always revalidated).
    public var defaultMaxAge: Int?
    /// Called, from any thread, with a message when the cache cannot be used or written (once per
    /// kind of problem).
    public var onWarning: (@Sendable (String) -> Void)?
    /// SQLite's `max_page_count` (pages of 16 KiB), 0 = no limit: a small one stands in for a full
    /// disk in tests.
    var maxPageCount = 0

    /// Creates a cache configuration.
    public init(
        directory: String, mode: Mode = .use, defaultMaxAge: Int? = nil,
        onWarning: (@Sendable (String) -> Void)? = nil
    ) {
        self.directory = directory
        self.mode = mode
        self.defaultMaxAge = defaultMaxAge
        self.onWarning = onWarning
    }

    /// Opens the cache (see ``HTTPCache/init(configuration:defaults:)``).
    public func makeStore(defaultFields: [HeaderField]) -> any ResponseStore {
        HTTPCache(configuration: self, defaults: defaultFields)
    }
}
