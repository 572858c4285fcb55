extension Engine {
    /// Budgets each host gets of its own, beside the batch's: request starts per second (retries
    /// included) and requests in flight. Unlike ``Configuration/maxConnectionsPerHost`` these
    /// count requests, HTTP/2 streams included, not connections.
    ///
    /// Work for a host with no budget left waits in that host's queue while other hosts' work
    /// goes ahead.
    public struct HostLimits: Sendable, Hashable {
        /// Starts per second by host: a name (`api.a.com`) or a name and port (`127.0.0.1:8080`),
        /// lower-cased.
        public var rates: [String: Double] = [:]
        /// Starts per second for hosts no rule names (`*`); `nil` = no per-host rate.
        public var defaultRate: Double? = nil
        /// Starts a host's bucket lets through at once; `nil` = a twentieth of a second of its
        /// rate, at least 1. The bucket fills at the rate less this, so that no one-second window
        /// sees more than the rate.
        public var burst: Int? = nil
        /// Requests in flight per host; `nil` = no per-host cap.
        public var maxInFlight: Int? = nil
        /// Each host's rate adapts to how it answers (``AdaptiveRate``): it rises while answers are
        /// good and is cut when the host throttles (429, 503) or times out, never above the host's
        /// rule where it has one.
        public var adaptive = false

        public init() {}

        /// Parses `--host-rate`'s rules: `api.a.com=10/s,*=2/s` (`/s` optional; `*` for every
        /// other host), then divides them into `shares` (a shard takes 1/N of a job's rates).
        public init(parsingRates text: String, shares: Int = 1) throws(FetchError) {
            for rule in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = rule.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                var value = parts.count == 2 ? parts[1].trimmingSpaces : ""
                if value.hasSuffix("/s") {
                    value = value.dropLast(2)
                }
                let written = parts[0].trimmingSpaces
                let host = written == "*" ? "*" : HostKey.ofRule(String(written))
                guard parts.count == 2, !host.isEmpty, let rate = Double(value), rate > 0, rate.isFinite else {
                    throw FetchError(
                        kind: .invalidRequest,
                        message: "--host-rate rule '\(rule)' is not HOST=N/s (e.g. api.a.com=10/s,*=2/s)")
                }
                let share = rate / Double(max(1, shares))
                if host == "*" {
                    self.defaultRate = share
                } else {
                    self.rates[host] = share
                }
            }
        }

        /// The rate for the host of `key` (a ``HostKey``: `name` or `name:port`).
        func rate(forHostKey key: Substring) -> Double? {
            if self.rates.isEmpty {
                return self.defaultRate
            }
            // Once per host: its key in a rule's form, so that a rule with port 80 or 443 applies.
            let key = HostKey.ofRule(String(key))
            if let rate = self.rates[key] {
                return rate
            }
            // The name without its port: the part before the last ':', unless that is inside [IPv6].
            if let colon = key.lastIndex(of: ":"), !key[colon...].contains("]"),
                let rate = self.rates[String(key[..<colon])]
            {
                return rate
            }
            return self.defaultRate
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
