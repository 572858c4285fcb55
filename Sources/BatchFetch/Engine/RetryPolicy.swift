/// When and how soon a failed attempt is tried again.
///
/// Exponential backoff as curl's `--retry` waits (1, 2, 4 s … up to 60 s), each delay up to a
/// quarter longer at random (`baseDelay * 2^(attempt-1) * (1 + U(0, 0.25))`, at most `maxDelay`),
/// so that many clients failing together do not retry together, and none retries sooner than
/// curl would: full jitter (`U(0, d)`) sent three retries within half a second, which a
/// throttling server counts against the client. A server's `Retry-After` replaces the
/// computed delay; one longer than ``maxRetryAfter`` ends the retries instead of being cut short,
/// because retrying before the server said it is ready is exactly what a throttling server punishes.
///
/// Pure value type: the engine loop asks it for a decision and schedules the retry on its timer heap.
public struct RetryPolicy: Sendable, Hashable {
    /// Retries after the first attempt; 0 disables retrying.
    public var maxRetries: Int
    /// The backoff before the first retry, doubled for each further one (before jitter).
    public var baseDelay: Duration
    /// The cap on a computed backoff.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a longer one ends the retries.
    public var maxRetryAfter: Duration
    /// Statuses that are retried: request timeout, too early, too many requests and the transient 5xx.
    public var retryableStatuses: Set<Int>
    /// Error kinds that are retried. Transport failures are retried only for idempotent methods,
    /// since the request may have reached the server; connect failures always are, since it did not.
    public var retryableErrors: Set<FetchError.Kind>
    /// Whether POST and PATCH are retried like the idempotent methods, for servers that make
    /// repeated requests harmless themselves (idempotency keys). Off: they are retried only where
    /// the server certainly did not process them (see
    /// ``decide(attempt:method:status:error:retryAfter:using:)``).
    public var retriesAllMethods: Bool

    /// The default: 3 retries, 1 s base, 60 s cap (curl's), honouring `Retry-After` up to 60 s.
    public init(
        maxRetries: Int = 3,
        baseDelay: Duration = .seconds(1),
        maxDelay: Duration = .seconds(60),
        maxRetryAfter: Duration = .seconds(60),
        retryableStatuses: Set<Int> = RetryPolicy.defaultRetryableStatuses,
        retryableErrors: Set<FetchError.Kind> = RetryPolicy.defaultRetryableErrors,
        retriesAllMethods: Bool = false
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
        self.retryableErrors = retryableErrors
        self.retriesAllMethods = retriesAllMethods
    }

    /// 408, 425, 429, 500, 502, 503, 504.
    public static let defaultRetryableStatuses: Set<Int> = [408, 425, 429, 500, 502, 503, 504]
    /// Connect failures, timeouts and broken connections.
    public static let defaultRetryableErrors: Set<FetchError.Kind> = [.connectFailed, .timeout, .transport]

    /// No retries at all.
    public static let none = RetryPolicy(maxRetries: 0)

    /// What to do after an attempt.
    public enum Decision: Sendable, Hashable {
        /// Try again after this delay.
        case retry(after: Duration)
        /// Keep this outcome.
        case done
    }

    /// Why an outcome worth retrying was kept: what a record says so that a request that stopped
    /// being retried does not look as if it never was. Indirect: results carry it, nearly always
    /// `nil`, and then it takes a pointer's room, not its durations'.
    public indirect enum GiveUp: Sendable, Hashable {
        /// Every retry the policy allows was made: this many attempts in all.
        case retriesExhausted(attempts: Int)
        /// The server's `Retry-After` asked for a longer wait than ``RetryPolicy/maxRetryAfter``.
        case retryAfterTooLong(requested: Duration, limit: Duration)
        /// The method is not idempotent and the server may have acted on the request (a 503
        /// without `Retry-After`, a 500, a connection broken after sending): it is not sent twice
        /// unless ``RetryPolicy/retriesAllMethods`` says so.
        case notIdempotent(method: Request.Method)
    }

    /// Decides whether attempt number `attempt` (1 for the first) is tried again.
    ///
    /// A POST or PATCH (not idempotent, RFC 9110 §9.2.2) is sent again only where the server
    /// certainly did not act on it: the connection was never made, the server answered 429, or
    /// 503 with a `Retry-After` (it is down for a while, not failing midway) — unless
    /// ``retriesAllMethods`` is set.
    ///
    /// - Parameters:
    ///   - status: the response status, when a response arrived.
    ///   - error: the error kind, when none did.
    ///   - retryAfter: the server's `Retry-After`, already converted to a delay from now.
    public func decide(
        attempt: Int,
        method: Request.Method,
        status: Int?,
        error: FetchError.Kind?,
        retryAfter: Duration?,
        using generator: inout some RandomNumberGenerator
    ) -> Decision {
        self.decision(
            attempt: attempt, method: method, status: status, error: error, retryAfter: retryAfter,
            using: &generator
        ).decision
    }

    /// Like ``decide(attempt:method:status:error:retryAfter:using:)``, and when it keeps an outcome
    /// that was worth retrying, why (with retries off, a kept outcome needs no reason).
    func decision(
        attempt: Int,
        method: Request.Method,
        status: Int?,
        error: FetchError.Kind?,
        retryAfter: Duration?,
        using generator: inout some RandomNumberGenerator
    ) -> (decision: Decision, gaveUp: GiveUp?) {
        let idempotent = method.isIdempotent || self.retriesAllMethods
        if let status {
            guard self.retryableStatuses.contains(status) else {
                return (.done, nil)
            }
            // A non-idempotent request that reached the server is retried only when the server
            // said it did not process it (429, or 503 with Retry-After).
            if !idempotent && status != 429 && !(status == 503 && retryAfter != nil) {
                return (.done, self.maxRetries > 0 ? .notIdempotent(method: method) : nil)
            }
        } else if let error {
            guard self.retryableErrors.contains(error) else {
                return (.done, nil)
            }
            if !idempotent && error != .connectFailed {
                return (.done, self.maxRetries > 0 ? .notIdempotent(method: method) : nil)
            }
        } else {
            return (.done, nil)
        }
        guard attempt <= self.maxRetries else {
            return (.done, self.maxRetries > 0 ? .retriesExhausted(attempts: attempt) : nil)
        }
        if let retryAfter {
            guard retryAfter <= self.maxRetryAfter else {
                return (.done, .retryAfterTooLong(requested: retryAfter, limit: self.maxRetryAfter))
            }
            return (.retry(after: max(retryAfter, .zero)), nil)
        }
        return (.retry(after: self.backoff(attempt: attempt, using: &generator)), nil)
    }

    /// The delay before retry number `attempt`: the base doubled per retry, up to a quarter more
    /// at random, at most ``maxDelay``.
    public func backoff(attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let base = Double(max(0, self.baseDelay.nanoseconds))
        let cap = Double(max(0, self.maxDelay.nanoseconds))
        let delay = min(cap, base * pow2(attempt - 1))
        guard delay > 0 else {
            return .zero
        }
        let jittered = min(cap, delay * Double.random(in: 1...1.25, using: &generator))
        return .nanoseconds(Int64(jittered))
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 62 ? Double.greatestFiniteMagnitude : Double(1 << max(0, exponent))
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = self.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : scaled &+ attoseconds / 1_000_000_000
    }

    /// The duration in milliseconds, as a Double (for records and reports).
    public var milliseconds: Double {
        Double(self.nanoseconds) / 1_000_000
    }
}
