import DequeModule
import HeapModule

/// The state machine's per-host budgets: each host's token bucket (``Engine/HostLimits``), its
/// requests in flight, and its own queue of transfers waiting for either, so that one host's
/// waiting work does not hold up other hosts' (as Scrapy's downloader slots do).
///
/// The slots are shared max-min fairly: while another host has work waiting, no host holds more
/// than its share of them (the slots divided by the hosts with work in flight or waiting), so a
/// slow or dead host cannot take every slot; a host alone, or the only one with work left, gets
/// them all.
///
/// A host whose queue may go on is in ``ready``, served before the batch's queue; one waiting
/// for a token has a wake-up in ``wakes``; one at its in-flight cap or share is made ready again
/// when one of its transfers ends. Threading: part of the state machine, on the engine thread.
struct HostBudgets {
    struct Host {
        var bucket: TokenBucket?
        var running = 0
        /// Transfers of this host in the batch's queue, which admission has not reached yet.
        var waiting = 0
        /// Transfers that came up while the host had no budget, in the order they came.
        var parked = Deque<Transfer>()
        /// In ``HostBudgets/ready``.
        var isReady = false
        /// When its wake-up in ``HostBudgets/wakes`` is due; 0 = none.
        var wakeDue: UInt64 = 0
        var counts = HostCounts()
        /// The rate ``Engine/HostLimits/adaptive`` steers; `nil` without it.
        var adaptive: AdaptiveRate?
        /// Work of this host waited for a token since its adaptive rate last rose: the rate, not
        /// the slots or a slow server, is what holds it back, so raising the rate can help.
        var waitedForToken = false
        /// The current one-second window of starts, for ``HostCounts/peakPerSecond``.
        var windowStart: UInt64 = 0
        var windowStarts = 0
        /// Answered over HTTP/2 (or 3) with streams per host on: it has its own slots, not a share.
        var multiplexes = false
        /// In ``HostBudgets/shareWaiters``: held at its share, woken when the share grows.
        var awaitsShare = false

        var isIdle: Bool {
            self.running == 0 && self.waiting == 0 && self.parked.isEmpty && !self.isReady && self.wakeDue == 0
        }
        /// Work in flight or waiting: the host counts in the fair share.
        var isActive: Bool { self.running > 0 || self.waiting > 0 || !self.parked.isEmpty }
        /// Work waiting for a slot.
        var hasWork: Bool { self.waiting > 0 || !self.parked.isEmpty }
        /// What ``HostBudgets/account(_:_:)`` counts of it.
        var standing: Standing {
            Standing(isActive: self.isActive, hasWork: self.hasWork, multiplexes: self.multiplexes)
        }
    }

    /// A host's place in the counts of active hosts and hosts with work.
    struct Standing {
        let isActive: Bool
        let hasWork: Bool
        let multiplexes: Bool
    }

    struct Wake: Comparable {
        let due: UInt64
        let host: Substring

        static func < (lhs: Wake, rhs: Wake) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Wake, rhs: Wake) -> Bool { lhs.due == rhs.due && lhs.host == rhs.host }
    }

    /// Why a transfer may not start now.
    enum Block {
        /// The host's next token is due in this many nanoseconds.
        case token(UInt64)
        /// The host is at its in-flight cap, or older work of its own waits before this one.
        case busy
    }

    let limits: Engine.HostLimits
    /// The engine's slots (transfers in flight at once), which the hosts share.
    let slots: Int
    var hosts: [Substring: Host] = [:]
    /// Hosts with work in flight or waiting (``Host/isActive``), and those with work waiting
    /// (``Host/hasWork``): kept as hosts change, so the fair share costs no walk over the hosts.
    var activeHosts = 0
    var hostsWithWork = 0
    var ready = Deque<Substring>()
    var wakes = Heap<Wake>()
    /// Transfers in the hosts' queues.
    var parkedCount = 0
    /// Whether a host that answers over HTTP/2 gets ``slots`` streams of its own (`--http2`).
    let streamsPerHost: Bool
    /// Active hosts that multiplex: each adds ``slots`` to the engine's (``extraSlots``).
    var activeMultiplexing = 0
    /// Transfers in flight of hosts that share the slots (all of them but multiplexing hosts').
    var sharingRunning = 0
    /// Hosts held at their share, and the smallest share they were held at: when the share grows
    /// past it (a host ran out of work), they are woken rather than waiting for their own stops.
    var shareWaiters: [Substring] = []
    var waitersShare = Int.max
    /// A shared slot came free while they were all taken and hosts multiplex (the engine's own cap
    /// then lies above the shared slots, so a freed one would wake nobody else).
    var sharedSlotFreed = false

    init(limits: Engine.HostLimits, slots: Int = 1 << 30, streamsPerHost: Bool = false) {
        self.limits = limits
        self.slots = max(1, slots)
        self.streamsPerHost = streamsPerHost
    }

    /// Whether a transfer for `key` may start now; `queued` says it comes from the host's own queue.
    mutating func block(_ key: Substring, queued: Bool, now: UInt64) -> Block? {
        guard let index = self.hosts.index(forKey: key) ?? self.add(key, now: now) else {
            return nil
        }
        if !queued && !self.hosts.values[index].parked.isEmpty {
            return .busy
        }
        if let cap = self.limits.maxInFlight, self.hosts.values[index].running >= cap {
            return .busy
        }
        if self.isOverShare(self.hosts.values[index]) {
            return .busy
        }
        guard self.hosts.values[index].bucket != nil else {
            return nil
        }
        if let wait = self.hosts.values[index].bucket?.wait(now: now) {
            self.hosts.values[index].waitedForToken = true
            return .token(wait)
        }
        return nil
    }

    /// Changes `key`'s host in place, with one look-up, and keeps the counts in step.
    /// - Returns: what `body` returned; `nil` when there is no such host.
    @discardableResult
    mutating func change<Result>(_ key: Substring, _ body: (inout Host) -> Result) -> Result? {
        guard let index = self.hosts.index(forKey: key) else {
            return nil
        }
        let before = self.hosts.values[index].standing
        let result = body(&self.hosts.values[index])
        self.account(before, self.hosts.values[index].standing)
        return result
    }

    /// Whether `host` holds its share of the slots while another host has work waiting; a host
    /// that multiplexes, whether its own slots are full.
    func isOverShare(_ host: borrowing Host) -> Bool {
        if host.multiplexes {
            return host.running >= self.slots
        }
        if self.sharingRunning >= self.slots {
            return true
        }
        guard self.hostsWithWork > (host.hasWork ? 1 : 0) else {
            return false
        }
        return host.running >= self.share(host)
    }

    /// The slots each host that shares them may hold, `host` counted among them.
    func share(_ host: borrowing Host) -> Int {
        let sharing = max(1, self.activeHosts + (host.isActive ? 0 : 1))
        return (self.slots + sharing - 1) / sharing
    }

    /// The transfer that ``block(_:queued:now:)`` let through starts: its host's token is taken.
    mutating func started(_ key: Substring, now: UInt64) {
        let multiplexes = self.change(key) { host in
            host.running += 1
            host.counts.requests += 1
            if now &- host.windowStart >= 1_000_000_000 {
                host.windowStart = now
                host.windowStarts = 0
            }
            host.windowStarts += 1
            host.counts.peakPerSecond = max(host.counts.peakPerSecond, host.windowStarts)
            _ = host.bucket?.take(now: now)
            return host.multiplexes
        }
        if multiplexes == false {
            self.sharingRunning += 1
        }
    }

    /// A transfer of `key` left the in-flight set: its host may take the next of its queue.
    mutating func stopped(_ key: Substring, now: UInt64) {
        let multiplexes = self.change(key) { host in
            host.running -= 1
            return host.multiplexes
        }
        if multiplexes == false {
            let wasFull = self.sharingRunning == self.slots && self.activeMultiplexing > 0
            self.sharedSlotFreed = self.sharedSlotFreed || wasFull
            self.sharingRunning -= 1
        }
        self.wake(key, now: now)
    }

    /// Puts `transfer` in its host's queue: at the back when it came from the batch's queue, back
    /// at the front when it came from the host's own or is a retry; and arranges for the queue to
    /// go on.
    mutating func park(_ transfer: Transfer, _ key: Substring, queued: Bool, block: Block, now: UInt64) {
        // The counts change before the wake-up, which judges the host's share by them as `block` did.
        let parked: Void? = self.change(key) { host in
            if queued {
                host.parked.prepend(transfer)
                host.isReady = false
            } else if transfer.attempts > 0 {
                // A retry keeps its place: before the host's requests not yet sent.
                host.parked.prepend(transfer)
            } else {
                host.parked.append(transfer)
            }
        }
        guard parked != nil else {
            return
        }
        if queued {
            // It was the ready host at the front of `ready`.
            self.ready.removeFirst()
        }
        self.parkedCount += 1
        if case .token(let wait) = block {
            self.schedule(key, at: now &+ wait)
        } else {
            self.wake(key, now: now)
        }
    }

    /// Puts back a transfer ``nextReady()`` gave that did not start after all (the batch's rate).
    mutating func putBack(_ transfer: Transfer, _ key: Substring) {
        if self.change(key, { $0.parked.prepend(transfer) }) != nil {
            self.parkedCount += 1
        }
    }

    /// The next transfer of the first ready host, taken out of its queue; `nil` when no host is ready.
    mutating func nextReady() -> (Transfer, Substring)? {
        while let key = self.ready.first {
            if let popped = self.change(key, { $0.parked.popFirst() }), let transfer = popped {
                self.parkedCount -= 1
                return (transfer, key)
            }
            self.ready.removeFirst()
            self.hosts[key]?.isReady = false
        }
        return nil
    }

    /// Makes `key`'s queue ready when it has work and budget for it, or schedules its wake-up.
    mutating func wake(_ key: Substring, now: UInt64) {
        guard let index = self.hosts.index(forKey: key) else {
            return
        }
        guard !self.hosts.values[index].parked.isEmpty, !self.hosts.values[index].isReady,
            self.hosts.values[index].wakeDue == 0
        else {
            return
        }
        if let cap = self.limits.maxInFlight, self.hosts.values[index].running >= cap {
            return
        }
        if self.isOverShare(self.hosts.values[index]) {
            self.awaitShare(key, at: index)
            return
        }
        if let wait = self.hosts.values[index].bucket?.wait(now: now) {
            self.hosts.values[index].waitedForToken = true
            self.schedule(key, at: now &+ wait)
            return
        }
        self.hosts.values[index].isReady = true
        self.ready.append(key)
    }

    private mutating func schedule(_ key: Substring, at due: UInt64) {
        guard let host = self.hosts[key], host.wakeDue == 0 || host.wakeDue > due else {
            return
        }
        self.hosts[key]?.wakeDue = due
        self.wakes.insert(Wake(due: due, host: key))
    }

    /// Makes the hosts whose token is due ready.
    mutating func timerFired(now: UInt64) {
        while let next = self.wakes.min, next.due <= now {
            _ = self.wakes.removeMin()
            // A later wake-up replaced one that is still in the heap: only the latest counts.
            guard self.hosts[next.host]?.wakeDue == next.due else {
                continue
            }
            self.hosts[next.host]?.wakeDue = 0
            self.wake(next.host, now: now)
        }
    }

    /// Every transfer in the hosts' queues, which are emptied.
    mutating func removeAllParked() -> [Transfer] {
        var all: [Transfer] = []
        for key in self.hosts.keys {
            self.change(key) { host in
                all += host.parked
                host.parked.removeAll()
            }
        }
        self.parkedCount = 0
        self.ready.removeAll()
        return all
    }

    /// A new host's budgets. - Returns: its index in ``hosts``.
    @discardableResult
    mutating func add(_ key: Substring, now: UInt64) -> Dictionary<Substring, Host>.Index? {
        // Forget idle hosts now and then, so that a list of a million hosts holds no million
        // entries; a host that comes back starts with a full bucket.
        if self.hosts.count >= 4096 {
            // Idle hosts are neither active nor hold work: the counts stay as they are.
            self.hosts = self.hosts.filter { !$0.value.isIdle }
        }
        var host = Host()
        let rule = self.limits.rate(forHostKey: key)
        if self.limits.adaptive {
            let adaptive = AdaptiveRate(ceiling: rule, now: now)
            let (rate, burst) = self.bucketShape(forRate: adaptive.rate)
            host.bucket = TokenBucket(rate: rate, burst: burst, now: now, full: false)
            host.adaptive = adaptive
            host.counts.rate = adaptive.rate
        } else if let rule {
            let (rate, burst) = self.bucketShape(forRate: rule)
            host.bucket = TokenBucket(rate: rate, burst: burst, now: now, full: false)
        }
        self.hosts[key] = host
        return self.hosts.index(forKey: key)
    }

    /// A bucket for a host allowed `rule` starts a second. A host's limit is commonly counted per
    /// second from its first request, and a bucket of burst B filling at r lets about B - 1 + r
    /// start within one second: at a quarter second's burst, W8 with --host-rate at the limits drew
    /// 429s on every host. So it holds 1/20 s (at least one start), fills at the rule less B - 1,
    /// and 2% under that for a late first arrival or a late wake-up: no second sees more than the rule.
    /// Rules above ``AdaptiveRate/maximumRate`` count as that, so no burst conversion can trap.
    private func bucketShape(forRate rule: Double) -> (rate: Double, burst: Double) {
        let rule = Swift.max(AdaptiveRate.minimumRate, Swift.min(rule, AdaptiveRate.maximumRate))
        let burst: Int = Swift.max(1, self.limits.burst ?? Int(rule / 20))
        let below: Double = rule - Double(burst - 1)
        return (0.98 * Swift.max(rule / 2, below), Double(burst))
    }

    /// `key`'s host throttled or failed as an overloaded host does: with ``Engine/HostLimits/adaptive``,
    /// its rate is cut.
    mutating func throttled(_ key: Substring, now: UInt64) {
        guard var adaptive = self.hosts[key]?.adaptive, adaptive.throttled(now: now) else {
            return
        }
        self.adapt(key, to: adaptive, now: now)
    }

    /// `key`'s host answered well: with ``Engine/HostLimits/adaptive``, its rate rises while it
    /// has work waiting and that work waited for the rate. Work that waits only for a slot (a
    /// host slower than the slots can keep busy) raises nothing: the rate then stays near what
    /// the slots can start instead of doubling without end.
    mutating func answered(_ key: Substring, now: UInt64) {
        guard let host = self.hosts[key], var adaptive = host.adaptive, !host.parked.isEmpty,
            host.waitedForToken, adaptive.answered(now: now)
        else {
            return
        }
        self.hosts[key]?.waitedForToken = false
        self.adapt(key, to: adaptive, now: now)
    }

    private mutating func adapt(_ key: Substring, to adaptive: AdaptiveRate, now: UInt64) {
        let (rate, burst) = self.bucketShape(forRate: adaptive.rate)
        self.hosts[key]?.adaptive = adaptive
        self.hosts[key]?.bucket?.change(rate: rate, burst: burst, now: now)
        self.hosts[key]?.counts.rate = adaptive.rate
    }
}

/// What happened to one host's requests in a run (`--stats`), counted with per-host limits set.
public struct HostCounts: Sendable, Hashable, Encodable {
    /// Attempts started, retries included.
    public var requests = 0
    /// Responses by status.
    public var statuses: [Int: Int] = [:]
    /// Times the host was paused (a `Retry-After`, or a 429/503 backed off).
    public var pauses = 0
    /// The most starts in one second (windows from the first start of each): the rate reached.
    public var peakPerSecond = 0
    /// With ``Engine/HostLimits/adaptive``, the start rate the host was left at; `nil` without it.
    public var rate: Double? = nil

    /// 429 responses.
    public var throttled: Int { self.statuses[429] ?? 0 }
}
