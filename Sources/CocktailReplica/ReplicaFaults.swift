/// Which failures the replica injects, and how often.
///
/// Every rate is a probability per response in `0...1`. The per-response faults (reset, truncate,
/// fail, malformed, wrong type, empty body, slow) are mutually exclusive, so their rates must add
/// up to at most 1; each response gets at most one of them. Which one a response gets is decided
/// by hashing the seed, the request target (path and query) and how many times that target was
/// requested before, so a run repeats exactly whatever the interleaving of connections.
///
/// Before those, in this order: `failFirst` fails the first attempts of every distinct target, and
/// `throttle` answers 429 to requests beyond the allowed rate. `latency` delays every response.
/// The stats endpoint is never faulted. Images get every fault but the JSON-specific ones
/// (malformed, wrong type, empty body): a response that draws one of those serves the image whole
/// and counts no fault.
public struct ReplicaFaults: Sendable, Hashable {
    /// How a 429 response states its `Retry-After`.
    public enum RetryAfterFormat: String, Sendable, Hashable, CaseIterable {
        /// Delta-seconds, e.g. `Retry-After: 1`.
        case seconds
        /// An IMF-fixdate, e.g. `Retry-After: Sun, 06 Nov 1994 08:49:37 GMT`.
        case httpDate = "http-date"
    }

    /// The probability of an error status drawn from ``failStatuses``.
    public var failRate: Double
    /// The statuses a failed response gets (one drawn per response), e.g. `[500, 502, 503]`.
    public var failStatuses: [Int]
    /// The most requests per second answered normally; later requests in the same second get 429.
    public var throttle: Int?
    /// The form of the 429 response's `Retry-After` header.
    public var retryAfterFormat: RetryAfterFormat
    /// The probability of closing the connection without a response.
    public var resetRate: Double
    /// The probability of sending the full `Content-Length`, part of the body, then closing.
    public var truncateRate: Double
    /// The probability of a 200 whose JSON body is cut and broken.
    public var malformedRate: Double
    /// The probability of a 200 with `Content-Type: text/html` and an HTML page.
    public var wrongTypeRate: Double
    /// The probability of an empty 200 body (`Content-Length: 0`), which the real API sends at times.
    public var emptyBodyRate: Double
    /// The probability of dripping the body in small pieces over ``slowMilliseconds``.
    public var slowRate: Double
    /// How long a slow response takes to drip its body.
    public var slowMilliseconds: Int
    /// A delay before every response (including fault responses), or `nil`.
    public var latency: ReplicaLatency?
    /// The first `failFirst` requests of every distinct target fail with ``failFirstStatus``.
    public var failFirst: Int
    /// The status of ``failFirst`` failures (503 by default).
    public var failFirstStatus: Int

    /// Creates fault settings; the defaults inject nothing.
    public init(
        failRate: Double = 0,
        failStatuses: [Int] = [500, 502, 503],
        throttle: Int? = nil,
        retryAfterFormat: RetryAfterFormat = .seconds,
        resetRate: Double = 0,
        truncateRate: Double = 0,
        malformedRate: Double = 0,
        wrongTypeRate: Double = 0,
        emptyBodyRate: Double = 0,
        slowRate: Double = 0,
        slowMilliseconds: Int = 1000,
        latency: ReplicaLatency? = nil,
        failFirst: Int = 0,
        failFirstStatus: Int = 503
    ) {
        self.failRate = failRate
        self.failStatuses = failStatuses
        self.throttle = throttle
        self.retryAfterFormat = retryAfterFormat
        self.resetRate = resetRate
        self.truncateRate = truncateRate
        self.malformedRate = malformedRate
        self.wrongTypeRate = wrongTypeRate
        self.emptyBodyRate = emptyBodyRate
        self.slowRate = slowRate
        self.slowMilliseconds = slowMilliseconds
        self.latency = latency
        self.failFirst = failFirst
        self.failFirstStatus = failFirstStatus
    }

    /// The exclusive per-response rates, in the order the fault die partitions `[0, 1)`.
    var exclusiveRates: [(kind: FaultKind, rate: Double)] {
        [
            (.reset, self.resetRate), (.truncate, self.truncateRate), (.fail, self.failRate),
            (.malformed, self.malformedRate), (.wrongType, self.wrongTypeRate),
            (.emptyBody, self.emptyBodyRate), (.slow, self.slowRate),
        ]
    }

    /// Whether any per-response fault can happen (so the die must be rolled).
    var rollsDice: Bool {
        self.exclusiveRates.contains { $0.rate > 0 } || (self.latency.map { $0.jitter > 0 } ?? false)
    }

    /// Checks every value's range.
    ///
    /// - Throws: ``ReplicaError`` with kind `.invalidConfiguration` naming the bad value.
    public func validate() throws {
        for (kind, rate) in self.exclusiveRates where !(rate.isFinite && (0...1).contains(rate)) {
            throw ReplicaError.invalidConfiguration("the \(kind.rawValue) rate must be between 0 and 1, got \(rate)")
        }
        let total = self.exclusiveRates.reduce(0) { $0 + $1.rate }
        guard total <= 1 + 1e-9 else {
            throw ReplicaError.invalidConfiguration(
                "the reset, truncate, fail, malformed, wrong-type, empty-body and slow rates add up to \(total); "
                    + "each response gets at most one of them, so they must add up to at most 1"
            )
        }
        let statuses = self.failStatuses + [self.failFirstStatus]
        if let bad = statuses.first(where: { !(100...599).contains($0) }) {
            throw ReplicaError.invalidConfiguration("fail status \(bad) is not an HTTP status (100-599)")
        }
        if self.failRate > 0 && self.failStatuses.isEmpty {
            throw ReplicaError.invalidConfiguration("a fail rate needs at least one fail status")
        }
        if let throttle = self.throttle, throttle < 1 {
            throw ReplicaError.invalidConfiguration("throttle must be at least 1 request per second, got \(throttle)")
        }
        guard self.slowMilliseconds >= 0, self.failFirst >= 0 else {
            throw ReplicaError.invalidConfiguration("slow milliseconds and fail-first must not be negative")
        }
    }
}
