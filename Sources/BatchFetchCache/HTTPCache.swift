import BatchFetch
import Foundation
import Synchronization

/// An engine's on-disk cache: decides, per request, whether the store answers, a conditional
/// request goes out, or a plain one; and turns results into stored entries.
///
/// The engine sees it as a ``ResponseStore``. The engine thread asks it about each submission as it
/// takes it from the inbox (a run of them in one read of the store, ``deciding(_:)``): a fresh
/// hit is answered without a transfer, so a warm run's lookups happen beside the consumer's
/// decoding and output, on the thread a warm run otherwise leaves idle. The consumer completes the
/// results of requests it let through (``complete(_:)``): storing, a hand-over to the store's
/// writer thread, stays off the engine thread, which a cold run keeps busy with the network.
///
/// Threading: any thread.
final class HTTPCache: ResponseStore {
    /// What to do with a request.
    enum Decision {
        /// The cache answers; send nothing.
        case answer(Result<Response, FetchError>, CacheOutcome)
        /// Send `request` (conditional when `pending` holds a stored entry); hand its result to
        /// ``complete(_:pending:)`` with `pending`.
        case send(Request, Pending)
        /// Send the request as it is; its response is not stored.
        case bypass

        /// The decision as the engine takes it.
        var forEngine: StoreDecision {
            switch self {
            case .answer(let outcome, let source): .answer(outcome, source)
            case .send(let request, let pending): .send(request, ticket: Completion(pending))
            case .bypass: .send(nil, ticket: Completion.bypass)
            }
        }
    }

    /// What ``complete(_:pending:)`` needs to know about a request that went out.
    struct Pending: Sendable {
        /// The request as submitted (without conditional fields).
        let original: Request
        /// The entry being revalidated, if any.
        let stored: CacheEntry?
    }

    /// What a result of a request the cache let through needs for ``complete(_:)``; boxed, so
    /// every ``FetchResult`` carries one pointer for it, not a request and an entry.
    final class Completion: Sendable {
        /// `nil` when the request was sent as it is and is not to be stored (not cacheable).
        let pending: Pending?
        /// The completion of every request sent as it is.
        static let bypass = Completion(nil)

        init(_ pending: Pending?) {
            self.pending = pending
        }
    }

    let configuration: HTTPCacheConfiguration
    private let defaults: [HeaderField]
    private let store: CacheStore?
    private let counts = Mutex(HTTPCacheStatistics())

    /// Opens the store; when it cannot be opened, warns and works without one (every request a
    /// miss, or a `notCached` failure in ``HTTPCacheConfiguration/Mode/only``).
    init(configuration: HTTPCacheConfiguration, defaults: [HeaderField]) {
        self.configuration = configuration
        self.defaults = defaults
        let warnings = CacheWarnings(configuration.onWarning)
        let warn: @Sendable (String, String) -> Void = { kind, message in warnings.warn(kind, message) }
        do throws(SQLiteError) {
            self.store = try CacheStore(configuration: configuration, warn: warn)
        } catch {
            self.store = nil
            warn(
                "open",
                "cannot use the cache in \(configuration.directory): \(error.message); fetching without it")
        }
    }

    /// What the cache did so far.
    var statistics: HTTPCacheStatistics {
        var snapshot = self.counts.withLock { $0 }
        if let (stored, dropped) = self.store?.counts {
            snapshot.stored = stored
            snapshot.dropped = dropped
        }
        return snapshot
    }

    /// Runs `body` with a function deciding one request, whose lookups share one read of the store
    /// (see ``CacheStore/reading(_:)``): for a run of requests decided together, such as everything
    /// the engine thread takes from its inbox at once.
    func deciding(_ body: (_ decide: (Request) -> StoreDecision) -> Void) {
        let now = Date().timeIntervalSince1970
        guard let store = self.store else {
            return body { self.decide($0, now: now, lookup: { _ in nil }).forEngine }
        }
        store.reading { session in
            body { self.decide($0, now: now, lookup: { session.lookup($0) }).forEngine }
        }
    }

    private func decide(_ request: Request, now: Double, lookup: (String) -> CacheEntry?) -> Decision {
        let mode = self.configuration.mode
        guard CachePolicy.isCacheable(request, defaults: self.defaults) else {
            return mode == .only ? self.notCached(request, why: "it is not cacheable") : .bypass
        }
        let stored = lookup(CachePolicy.key(for: request)).flatMap { entry in
            let names = CachePolicy.varyNames(entry.responseHeaders) ?? []
            return entry.vary == CachePolicy.varyKey(names: names, request: request, defaults: self.defaults)
                ? entry : nil
        }
        guard let stored else {
            return mode == .only
                ? self.notCached(request, why: "it is not in the cache")
                : .send(request, Pending(original: request, stored: nil))
        }
        let fresh =
            mode == .only
            || (mode == .use
                && CacheFreshness(headers: stored.responseHeaders).isFresh(
                    requestTime: stored.requestTime, responseTime: stored.responseTime, now: now,
                    defaultMaxAge: self.configuration.defaultMaxAge))
        if fresh {
            self.count(.hit)
            return .answer(.success(self.response(from: stored, attempts: 0, timings: Timings())), .hit)
        }
        if let conditional = CachePolicy.conditionalRequest(request, stored: stored.responseHeaders) {
            return .send(conditional, Pending(original: request, stored: stored))
        }
        return .send(request, Pending(original: request, stored: nil))
    }

    /// `results` with each result the engine marked (``FetchResult/storeTicket``) completed.
    func complete(_ results: [FetchResult]) -> [FetchResult] {
        // Answers from the store (every result of a warm crawl) carry none: the array goes on
        // as it is, without a copy of each result.
        guard results.contains(where: { $0.storeTicket != nil }) else {
            return results
        }
        return results.map { result in
            result.cacheCompletion.map { self.complete(result, pending: $0.pending) } ?? result
        }
    }

    /// The result to hand on for a request that went out: a `304` for a stored entry becomes the
    /// stored response (its body byte for byte); a storable response is queued for the store.
    func complete(_ result: FetchResult, pending: Pending?, now: Double = Date().timeIntervalSince1970)
        -> FetchResult
    {
        guard let pending, case .success(let response) = result.outcome else {
            self.count(.miss)
            return result.with(cache: .miss, request: pending?.original)
        }
        let requestTime = now - response.timings.total.seconds
        if response.status == 304, var entry = pending.stored {
            entry.headers = CachePolicy.refreshedFields(stored: entry.responseHeaders, notModified: response.headers)
            entry.requestTime = requestTime
            entry.responseTime = now
            self.store?.store(entry)
            self.count(.revalidated)
            let answer = self.response(from: entry, attempts: result.attempts, timings: response.timings)
            var revalidated = result.with(cache: .revalidated, request: pending.original)
            revalidated.outcome = .success(answer)
            return revalidated
        }
        let freshness = CacheFreshness(headers: response.headers)
        if CachePolicy.storableStatuses.contains(response.status), !freshness.noStore,
            let names = CachePolicy.varyNames(response.headers)
        {
            self.store?.store(
                CacheEntry(
                    key: CachePolicy.key(for: pending.original),
                    vary: CachePolicy.varyKey(names: names, request: pending.original, defaults: self.defaults),
                    status: response.status, effectiveURL: response.effectiveURL,
                    headers: CachePolicy.storedFields(response.headers), body: response.body,
                    requestTime: requestTime, responseTime: now))
        }
        self.count(.miss)
        return result.with(cache: .miss, request: pending.original)
    }

    /// Counts a result the cache never saw (a request refused before sending) as a miss.
    func refused(_ result: FetchResult) -> FetchResult {
        self.count(.miss)
        return result.with(cache: .miss)
    }

    /// Writes what is queued and closes the store. Idempotent; blocks until the writer is done.
    func close() {
        self.store?.close()
    }

    private func response(from entry: CacheEntry, attempts: Int, timings: Timings) -> Response {
        Response(
            status: entry.status, headers: entry.responseHeaders, body: entry.body, effectiveURL: entry.effectiveURL,
            attempts: attempts, timings: timings)
    }

    private func notCached(_ request: Request, why: String) -> Decision {
        self.count(.miss)
        let error = FetchError(
            kind: .notCached,
            message: "\(request.url.redactedURL) was not fetched: --cache-mode only sends nothing and \(why)")
        return .answer(.failure(error), .miss)
    }

    private func count(_ outcome: CacheOutcome) {
        self.counts.withLock { statistics in
            switch outcome {
            case .hit: statistics.hits += 1
            case .revalidated: statistics.revalidated += 1
            case .miss: statistics.misses += 1
            }
        }
    }
}

/// Passes each kind of problem to the configuration's handler once per engine: a full disk
/// would otherwise repeat its warning for every batch.
final class CacheWarnings: Sendable {
    private let warned = Mutex(Set<String>())
    private let handler: (@Sendable (String) -> Void)?

    init(_ handler: (@Sendable (String) -> Void)?) {
        self.handler = handler
    }

    func warn(_ kind: String, _ message: String) {
        if self.warned.withLock({ $0.insert(kind).inserted }) {
            self.handler?(message)
        }
    }
}

extension FetchResult {
    /// What the cache gave the result's request when it let it through.
    var cacheCompletion: HTTPCache.Completion? {
        self.storeTicket as? HTTPCache.Completion
    }

    /// This result marked with where it came from, for `request` when given, keeping what the
    /// engine said of its transfer (attempts, sharing, times).
    func with(cache: CacheOutcome, request: Request? = nil) -> FetchResult {
        var result = self
        result.cache = cache
        result.storeTicket = nil
        if let request {
            result.request = request
        }
        return result
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
