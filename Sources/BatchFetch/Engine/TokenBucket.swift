/// A token bucket: on average `rate` admissions per second, with bursts of up to `burst`.
///
/// Pure value type driven by a monotonic clock in nanoseconds, so it is tested without sleeping.
/// The engine loop consults it at admission and, when it is empty, sleeps in `curl_multi_poll`
/// until the next token is due.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: UInt64

    /// A bucket that starts full.
    init(rate: Double, burst: Double, now: UInt64) {
        self.rate = rate
        self.burst = max(1, burst)
        self.tokens = self.burst
        self.last = now
    }

    /// Takes a token if one is available.
    /// - Returns: `nil` when a token was taken, else the nanoseconds until one will be.
    mutating func take(now: UInt64) -> UInt64? {
        if now > self.last {
            self.tokens = min(self.burst, self.tokens + Double(now - self.last) * self.rate / 1e9)
            self.last = now
        }
        if self.tokens >= 1 {
            self.tokens -= 1
            return nil
        }
        return UInt64(((1 - self.tokens) / self.rate * 1e9).rounded(.up))
    }
}
