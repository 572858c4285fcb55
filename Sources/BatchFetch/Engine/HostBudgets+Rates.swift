extension HostBudgets {
    // MARK: - rates: buckets and their adaptation

    /// A bucket for a host allowed `rule` starts a second. A host's limit is commonly counted per
    /// second from its first request, and a bucket of burst B filling at r lets about B - 1 + r
    /// start within one second: at a quarter second's burst, W8 with --host-rate at the limits drew
    /// 429s on every host. So it holds 1/20 s (at least one start), fills at the rule less B - 1,
    /// and 2% under that for a late first arrival or a late wake-up: no second sees more than the rule.
    /// Rules above ``AdaptiveRate/maximumRate`` count as that, so no burst conversion can trap.
    func bucketShape(forRate rule: Double) -> (rate: Double, burst: Double) {
        let rule = Swift.max(AdaptiveRate.minimumRate, Swift.min(rule, AdaptiveRate.maximumRate))
        let burst: Int = Swift.max(1, self.limits.burst ?? Int(rule / 20))
        let below: Double = rule - Double(burst - 1)
        return (0.98 * Swift.max(rule / 2, below), Double(burst))
    }

    /// How long until `host` may start a request by its rate and its spacing; `nil`: now.
    static func tokenWait(_ host: Host, now: UInt64) -> UInt64? {
        let rate = host.bucket?.wait(now: now)
        guard let spacing = host.spacing?.wait(now: now) else {
            return rate
        }
        return Swift.max(rate ?? 0, spacing)
    }

    /// From now on `key`'s host starts at most one request per `interval` (robots.txt's
    /// `Crawl-delay`), on top of its rate, which it can only slow: the start that read the rule
    /// counts as the first.
    mutating func space(_ key: Substring, by interval: Duration, now: UInt64) {
        let host = self.hosts[key] ?? self.add(key, now: now)
        let seconds = Swift.max(0.001, Double(interval.nanoseconds) / 1e9)
        var spacing = TokenBucket(rate: 1 / seconds, burst: 1, now: now, full: false)
        _ = spacing.take(now: now)
        host.spacing = spacing
    }

    /// `key`'s host throttled or failed as an overloaded host does: with ``Engine/HostLimits/adaptive``,
    /// its rate is cut. `paused`: the answer paused the host (`Retry-After`).
    mutating func throttled(_ key: Substring, now: UInt64, paused: Bool = false) {
        guard let host = self.hosts[key], var adaptive = host.adaptive, adaptive.throttled(now: now, paused: paused)
        else {
            return
        }
        self.adapt(host, to: adaptive, now: now)
    }

    /// `key`'s host answered well: with ``Engine/HostLimits/adaptive``, its rate rises while it
    /// has work waiting and that work waited for the rate. Work that waits only for a slot (a
    /// host slower than the slots can keep busy) raises nothing: the rate then stays near what
    /// the slots can start instead of doubling without end.
    mutating func answered(_ key: Substring, now: UInt64) {
        guard let host = self.hosts[key], var adaptive = host.adaptive else {
            return
        }
        adaptive.succeeded()
        guard !host.parked.isEmpty, host.waitedForToken, adaptive.answered(now: now) else {
            host.adaptive = adaptive
            return
        }
        host.waitedForToken = false
        self.adapt(host, to: adaptive, now: now)
    }

    private mutating func adapt(_ host: Host, to adaptive: AdaptiveRate, now: UInt64) {
        let (rate, burst) = self.bucketShape(forRate: adaptive.rate)
        host.adaptive = adaptive
        host.bucket?.change(rate: rate, burst: burst, now: now)
        host.counts.rate = adaptive.rate
    }
}
