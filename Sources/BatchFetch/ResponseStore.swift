/// A store of responses the engine consults before it sends and fills after: how an HTTP cache
/// (the `BatchFetchCache` module's) plugs into the engine without the engine knowing it.
///
/// The engine thread decides each submission as it takes it from the inbox (a run of them in one
/// ``deciding(_:)`` call, so a store can share one read among them): the store answers it, or
/// lets it through, as it is or in a form of its own (a conditional request), with a ticket. The
/// consumer of a batch hands every result back (``complete(_:)``): results whose requests the
/// store let through carry its ticket (``FetchResult/storeTicket``), and the store turns them
/// into what it stores and what the batch sees.
///
/// Threading: any thread; ``deciding(_:)`` runs on the engine thread, ``complete(_:)`` on
/// consumers'.
public protocol ResponseStore: AnyObject, Sendable {
    /// Calls `body` with a function deciding one request, valid only during the call.
    func deciding(_ body: (_ decide: (Request) -> StoreDecision) -> Void)
    /// `results` with each result that carries a ticket completed: stored, or answered from the
    /// store (a `304`), and marked with where its response came from.
    func complete(_ results: [FetchResult]) -> [FetchResult]
    /// `result` (of a request refused before it reached the engine, which the store never saw)
    /// marked as the store counts it.
    func refused(_ result: FetchResult) -> FetchResult
    /// What the store did so far.
    var statistics: HTTPCacheStatistics { get }
    /// Writes what is queued and closes the store. Idempotent; blocks until the writer is done.
    func close()
}

/// How an engine makes its store (``Engine/Configuration/cache``).
public protocol ResponseStoreConfiguration: Sendable {
    /// Opens the store of an engine whose requests also carry `defaultFields` (the engine's own
    /// header fields, which a response's `Vary` may name).
    func makeStore(defaultFields: [HeaderField]) -> any ResponseStore
}

/// What the engine carries, unread, from a store's decision to the result it hands back.
public typealias StoreTicket = AnyObject & Sendable

/// What to do with a request, as a ``ResponseStore`` decides it.
public enum StoreDecision {
    /// The store answers; nothing is sent.
    case answer(Result<Response, FetchError>, CacheOutcome)
    /// Send `request` (the submitted one when `nil`); its result carries `ticket`.
    case send(Request?, ticket: any StoreTicket)
}

/// Where a result's response came from, when the engine has a cache.
public enum CacheOutcome: String, Sendable, Hashable {
    /// From the store, without a request (fresh, or `--cache-mode only`).
    case hit
    /// From the store after the server answered a conditional request with `304 Not Modified`.
    case revalidated
    /// From the network (not stored, stale and changed, or not cacheable), or no response at all.
    case miss
}

/// What an engine's cache did so far.
public struct HTTPCacheStatistics: Sendable, Hashable, Codable {
    /// Results answered from the store without a request.
    public var hits = 0
    /// Results answered from the store after a `304`.
    public var revalidated = 0
    /// Results that went to the network, or failed.
    public var misses = 0
    /// Responses written to the store.
    public var stored = 0
    /// Responses not written (the store was unusable or full, or the writer fell behind).
    public var dropped = 0

    /// Empty statistics.
    public init() {}
}
