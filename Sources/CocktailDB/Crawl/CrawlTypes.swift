import BatchFetch
import Synchronization

/// What to crawl and how.
public struct CrawlOptions: Sendable, Hashable {
    /// The facet whose values are listed and filtered.
    public var facet: Facet
    /// Fetch every drink's full record (`lookup.php?i=`), not only its summary.
    public var details: Bool
    /// Also sweep `search.php?f=` over a–z and 0–9, to find drinks the per-query result cap hid.
    public var complete: Bool
    /// Names of the facets (a prefix of the list, in order) already done by an interrupted run
    /// being resumed: checked against the list, then neither fetched nor emitted.
    public var done: [String]

    /// Creates options; by default a plain crawl by category.
    public init(facet: Facet = .category, details: Bool = false, complete: Bool = false, done: [String] = []) {
        self.facet = facet
        self.details = details
        self.complete = complete
        self.done = done
    }

    /// The characters the completeness sweep searches by.
    public static let sweepLetters: [String] =
        (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        + (0...9).map(String.init)
}

/// One drink of a crawled facet: its summary, or its full record with `details` (as the JSON
/// the crawl writes; ``DrinkRecord/drink`` reads it as a ``Drink``).
public enum CrawlDrink: Sendable, Hashable {
    case summary(DrinkSummary)
    case record(DrinkRecord)

    /// The drink's id.
    public var id: String {
        switch self {
        case .summary(let summary): summary.id
        case .record(let drink): drink.id
        }
    }

    /// The drink's name.
    public var name: String {
        switch self {
        case .summary(let summary): summary.name
        case .record(let drink): drink.name
        }
    }
}

/// A failure that kept a facet (or the sweep) from being complete.
public struct CrawlFailure: Error, Sendable, Hashable {
    /// The error's stable kind.
    public let kind: FetchError.Kind
    /// What happened.
    public let message: String
    /// The URL that failed (credentials redacted).
    public let url: String
    /// Attempts made.
    public let attempts: Int

    /// Creates a failure record.
    public init(kind: FetchError.Kind, message: String, url: String, attempts: Int) {
        self.kind = kind
        self.message = message
        self.url = url.redactedURL
        self.attempts = attempts
    }

    /// `url` as ``CocktailDB/redacted(_:)`` gives it: without a private API key.
    init(_ error: FetchError, url: String, attempts: Int) {
        self.init(kind: error.kind, message: error.message, url: url, attempts: attempts)
    }
}

/// One facet value with its drinks, emitted in list order.
public struct FacetResult: Sendable, Hashable {
    /// The position in `list.php` order.
    public let index: Int
    /// The facet value.
    public let value: FacetValue
    /// The drinks: listed ones in the API's order, then (with `complete`) those only the sweep
    /// found, in id order. Empty when the facet failed.
    public let drinks: [CrawlDrink]
    /// How many of ``drinks`` only the sweep found.
    public let sweepOnly: Int
    /// Why the facet is incomplete, when it is.
    public let failure: CrawlFailure?
}

/// Live counters of a running crawl, for progress displays. Thread-safe.
public final class CrawlProgress: Sendable {
    /// A consistent reading of the counters.
    public struct Snapshot: Sendable, Hashable {
        public var facetsTotal = 0
        public var facetsDone = 0
        public var requestsDone = 0
        public var requestsQueued = 0
        public var errors = 0
    }

    private let state = Mutex(Snapshot())

    /// Creates zeroed counters.
    public init() {}

    /// The current counters.
    public var snapshot: Snapshot { self.state.withLock { $0 } }

    func update(_ body: (inout Snapshot) -> Void) {
        self.state.withLock { body(&$0) }
    }
}

/// What a crawl did, for the summary and `--stats`.
public struct CrawlSummary: Sendable, Hashable, Codable {
    /// Facets in the list.
    public var facets = 0
    /// Facets emitted (not skipped).
    public var emitted = 0
    /// Facets emitted with an error.
    public var failedFacets = 0
    /// Drinks emitted, over all facets.
    public var drinks = 0
    /// Drinks only the sweep found.
    public var sweepOnlyDrinks = 0
    /// Sweep-only drinks per facet value.
    public var sweepOnlyByFacet: [String: Int] = [:]
    /// Sweep queries that failed (coverage is then not guaranteed).
    public var sweepFailures: [String] = []
    /// HTTP requests made (each attempt counts once).
    public var requests = 0
    /// Attempts beyond the first.
    public var retries = 0
    /// Requests that failed after retries: no response, or a status outside 2xx.
    public var failedRequests = 0
    /// Body bytes received.
    public var bytes = 0
    /// Responses by the HTTP version they came over (`HTTP/1.1`, `HTTP/2`).
    public var protocols: [String: Int] = [:]

    /// Creates an empty summary.
    public init() {}
}
