import Foundation

/// What the server sent back for one request, after any retries.
///
/// A response is whatever status the server chose; whether that status is acceptable is the
/// decoding pipeline's decision, not the engine's, so a 404 is a `Response` here.
public struct Response: Sendable {
    /// The HTTP status code of the final response.
    public let status: Int
    /// The header fields of the final response (after redirects, only the last response's).
    public let headers: HTTPHeaders
    /// The body, decompressed, in one contiguous buffer; empty when the engine was told not to
    /// keep bodies (``Engine/Configuration/keepsBodies``).
    public let body: Data
    /// The body, saved to a temporary file as it arrived, when the engine saves bodies to files
    /// (``Engine/Configuration/bodyFolder``); ``body`` is empty then. `nil` otherwise, and when
    /// there was no body byte.
    public let spooledBody: SpooledBody?
    /// How many body bytes arrived (decompressed), whether kept in ``body`` or not.
    public let bodyByteCount: Int
    /// The URL the body came from: the request's URL, or the last one after redirects.
    public let effectiveURL: String
    /// How many attempts it took, 1 when the first one succeeded.
    public let attempts: Int
    /// Where the time went, for the final attempt, plus the time the request spent queued.
    public let timings: Timings
    /// The HTTP version the response came over.
    public let httpVersion: HTTPVersion
    /// How many new connections the final attempt opened (0 when it reused one).
    public let newConnections: Int

    /// The `Content-Type` header, if any: the last non-empty one when the server sent several, as
    /// curl reads it (`%{content_type}`).
    public var contentType: String? { self.headers.lastNonEmptyValue(for: "content-type") }

    /// Creates a response (the engine does this; public for tests and custom transports).
    public init(
        status: Int,
        headers: HTTPHeaders,
        body: Data,
        spooledBody: SpooledBody? = nil,
        bodyByteCount: Int? = nil,
        effectiveURL: String,
        attempts: Int = 1,
        timings: Timings = Timings(),
        httpVersion: HTTPVersion = .http1_1,
        newConnections: Int = 0
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.spooledBody = spooledBody
        self.bodyByteCount = bodyByteCount ?? body.count + (spooledBody?.bytes ?? 0)
        self.effectiveURL = effectiveURL
        self.attempts = attempts
        self.timings = timings
        self.httpVersion = httpVersion
        self.newConnections = newConnections
    }
}

/// An HTTP protocol version.
public enum HTTPVersion: String, Sendable, Hashable, Codable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
}

/// Where the time of one transfer went, measured by libcurl (microsecond resolution), plus the
/// time batchfetch held the request before handing it to libcurl.
///
/// The phase values are cumulative from the start of the attempt, as libcurl reports them: `connect`
/// includes `nameLookup`, `firstByte` includes everything before it, and so on (``phases`` has
/// them one after the other).
public struct Timings: Sendable, Hashable {
    /// From submission to the first attempt's start (waiting for a transfer slot or the rate limit).
    public var queued: Duration
    /// Until the name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was up (0 on a reused connection).
    public var connect: Duration
    /// Until the TLS handshake finished (0 for plain HTTP or a reused connection).
    public var tlsHandshake: Duration
    /// Until the request was about to be sent.
    public var preTransfer: Duration
    /// Until the first byte of the response arrived.
    public var firstByte: Duration
    /// The whole attempt.
    public var total: Duration

    /// Creates timings; every phase defaults to zero.
    public init(
        queued: Duration = .zero,
        nameLookup: Duration = .zero,
        connect: Duration = .zero,
        tlsHandshake: Duration = .zero,
        preTransfer: Duration = .zero,
        firstByte: Duration = .zero,
        total: Duration = .zero
    ) {
        self.queued = queued
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.preTransfer = preTransfer
        self.firstByte = firstByte
        self.total = total
    }
}

/// One result of a batch: which input it answers, and the response or the reason there is none.
public struct FetchResult: Sendable {
    /// The position of the request in the submitted sequence, from 0.
    public let index: Int
    /// The request as submitted (for a result another's transfer answered, that one's request,
    /// which is identical but for its ``Request/tag``).
    public package(set) var request: Request
    /// The response, or why there is none.
    public package(set) var outcome: Result<Response, FetchError>
    /// How many attempts were made (0 when the request was rejected before sending, the cache
    /// answered it, or another request's transfer did: see ``sharedWith``).
    public let attempts: Int
    /// Where the response came from when the engine has a cache (``Engine/Configuration/cache``);
    /// `nil` without one.
    public package(set) var cache: CacheOutcome?
    /// When identical requests shared one transfer (``Engine/Configuration/deduplicate``): the
    /// ``index`` of the result whose transfer answered this one, which made the attempts, so
    /// this one's ``attempts`` is 0. `nil` for a request that had its own transfer, or none.
    ///
    /// The index is in the batch that made the transfer: this batch, unless several batches
    /// run on one engine at once.
    public var sharedWith: Int? { self.facts.sharedIndex >= 0 ? self.facts.sharedIndex : nil }
    /// With ``sharedWith``: the ``Request/tag`` of the request whose transfer answered this one.
    package var sharedWithTag: Int? { self.facts.sharedTag == .min ? nil : self.facts.sharedTag }
    /// How long the request took, from its first attempt's start to the end of its last: every
    /// attempt, and the waits before retries (``Timings/total`` is the last attempt's alone).
    /// `nil` when it sent nothing: refused, answered by the cache or by another's transfer.
    public var totalTime: Duration? {
        self.facts.totalNanoseconds >= 0 ? .nanoseconds(self.facts.totalNanoseconds) : nil
    }
    /// Why the engine stopped retrying an outcome worth retrying (a 503, a timeout): retries
    /// exhausted, or a `Retry-After` longer than it waits. `nil` otherwise, and on results
    /// another's transfer answered.
    public var gaveUp: RetryPolicy.GiveUp? { self.facts.gaveUp }
    /// How many connections the request's attempts opened, failed ones included (what a server
    /// that never answers costs); 0 for a result that sent nothing. ``Response/newConnections``
    /// counts the final attempt's alone.
    public var newConnections: Int { self.facts.newConnections }
    /// What the engine gathered about the transfer behind this result, when it gathers anything
    /// (``Engine/Configuration/details``); `nil` otherwise, and for a result that sent nothing
    /// (refused, or answered by the cache). A result that shared another's transfer
    /// (``sharedWith``) carries that transfer's, attempts included, as it carries its response.
    public var details: TransferDetails? { self.facts.details }
    /// Set by the engine thread on the result of a request its store let through: the consumer
    /// completes it (``ResponseStore/complete(_:)``), so storing stays off the engine thread.
    package var storeTicket: (any StoreTicket)?
    private let facts: TransferFacts

    /// What the engine says of the transfer behind a result, packed: every result moves through
    /// several queues between the engine thread and its consumer, and as five optionals these
    /// would take more than twice the bytes.
    private struct TransferFacts {
        /// -1: none.
        var sharedIndex: Int
        /// `Int.min`: none.
        var sharedTag: Int
        /// -1: none.
        var totalNanoseconds: Int64
        var newConnections: Int
        /// Indirect (a pointer) and set only when retrying stopped early: its durations stay out
        /// of every other result.
        var gaveUp: RetryPolicy.GiveUp?
        var details: TransferDetails?

        init(
            sharedWith: Int?, sharedWithTag: Int?, totalTime: Duration?, newConnections: Int,
            gaveUp: RetryPolicy.GiveUp?, details: TransferDetails? = nil
        ) {
            self.sharedIndex = sharedWith ?? -1
            self.sharedTag = sharedWithTag ?? .min
            self.totalNanoseconds = totalTime.map { max(0, $0.nanoseconds) } ?? -1
            self.newConnections = newConnections
            self.gaveUp = gaveUp
            self.details = details
        }
    }

    /// Creates a result; `newConnections` defaults to the response's.
    public init(
        index: Int, request: Request, outcome: Result<Response, FetchError>, attempts: Int, cache: CacheOutcome? = nil,
        sharedWith: Int? = nil, totalTime: Duration? = nil, newConnections: Int? = nil,
        gaveUp: RetryPolicy.GiveUp? = nil
    ) {
        self.index = index
        self.request = request
        self.outcome = outcome
        self.attempts = attempts
        self.cache = cache
        self.facts = TransferFacts(
            sharedWith: sharedWith, sharedWithTag: nil, totalTime: totalTime,
            newConnections: newConnections ?? (try? outcome.get())?.newConnections ?? 0, gaveUp: gaveUp)
    }

    /// A result of a transfer's waiter; the store completes it when it let the request through
    /// (`storeTicket` not `nil`).
    init(
        index: Int, request: Request, outcome: Result<Response, FetchError>, attempts: Int,
        storeTicket: (any StoreTicket)?, sharedWith: Int? = nil, sharedWithTag: Int? = nil,
        totalTime: Duration? = nil, newConnections: Int = 0, gaveUp: RetryPolicy.GiveUp? = nil,
        details: TransferDetails? = nil
    ) {
        self.index = index
        self.request = request
        self.outcome = outcome
        self.attempts = attempts
        self.cache = nil
        self.storeTicket = storeTicket
        self.facts = TransferFacts(
            sharedWith: sharedWith, sharedWithTag: sharedWithTag, totalTime: totalTime,
            newConnections: newConnections, gaveUp: gaveUp, details: details)
    }

    /// The response, if there is one.
    public var response: Response? {
        if case .success(let response) = self.outcome { return response }
        return nil
    }

    /// The error, if there is one.
    public var error: FetchError? {
        if case .failure(let error) = self.outcome { return error }
        return nil
    }
}
