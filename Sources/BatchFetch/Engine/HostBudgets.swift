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
    /// One host's budgets and queue: a class, so that a transfer keeps a reference to its host
    /// (``Transfer/budget``) and each change is a write through it, not a look-up of its key and
    /// a copy of its queue and counts.
    final class Host {
        /// Dropped from ``HostBudgets/hosts`` as idle: a transfer holding it looks its host up again.
        var isForgotten = false
        var bucket: TokenBucket?
        /// At most one start per interval (robots.txt's `Crawl-delay`), whatever ``bucket`` allows.
        var spacing: TokenBucket?
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
        /// It answered (any status) in this run: only such a host takes slots another left before
        /// its own transfers end, so that a host that never answers (dead, its connects pending for
        /// seconds) cannot take slots that work read a moment later needs.
        var hasAnswered = false

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
        let host: Host

        static func < (lhs: Wake, rhs: Wake) -> Bool { lhs.due < rhs.due }
        static func == (lhs: Wake, rhs: Wake) -> Bool { lhs.due == rhs.due && lhs.host === rhs.host }
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
    var ready = Deque<Host>()
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
    var shareWaiters: [Host] = []
    var waitersShare = Int.max
    /// A shared slot came free while they were all taken and hosts multiplex (the engine's own cap
    /// then lies above the shared slots, so a freed one would wake nobody else).
    var sharedSlotFreed = false

    init(limits: Engine.HostLimits, slots: Int = 1 << 30, streamsPerHost: Bool = false) {
        self.limits = limits
        self.slots = max(1, slots)
        self.streamsPerHost = streamsPerHost
    }

    /// `transfer`'s host, from the reference it keeps or, the first time, by its key (added when new).
    mutating func host(of transfer: Transfer, now: UInt64) -> Host {
        if let host = transfer.budget, !host.isForgotten {
            return host
        }
        let key = transfer.hostKey
        let host = self.hosts[key] ?? self.add(key, now: now)
        transfer.budget = host
        return host
    }

    /// `key`'s host, when it has budgets.
    func host(_ key: Substring) -> Host? {
        self.hosts[key]
    }

    /// Whether `transfer` may start now; `queued` says it comes from its host's own queue.
    mutating func block(_ transfer: Transfer, queued: Bool, now: UInt64) -> Block? {
        let host = self.host(of: transfer, now: now)
        if !queued && !host.parked.isEmpty {
            return .busy
        }
        if let cap = self.limits.maxInFlight, host.running >= cap {
            return .busy
        }
        if self.isOverShare(host) {
            return .busy
        }
        if let wait = Self.tokenWait(host, now: now) {
            host.waitedForToken = true
            return .token(wait)
        }
        return nil
    }

    /// Changes `host` and keeps the counts in step. - Returns: what `body` returned.
    @discardableResult
    mutating func change<Result>(_ host: Host, _ body: (Host) -> Result) -> Result {
        let before = host.standing
        let result = body(host)
        self.account(before, host.standing)
        return result
    }

    /// Whether `host` holds its share of the slots while another host has work waiting; a host
    /// that multiplexes, whether its own slots are full.
    func isOverShare(_ host: Host) -> Bool {
        if host.multiplexes {
            return host.running >= self.slots
        }
        if self.sharingRunning >= self.slots {
            return true
        }
        if !host.hasAnswered && self.hosts.count > 1 && host.running >= self.share(among: max(2, self.activeHosts)) {
            // Not answered yet (dead, or its connects slow) beside other hosts: its share, at most
            // half the slots, even while the others have nothing waiting this moment; else it takes
            // every free slot and their next work waits out its connect timeouts. Its first answer
            // lifts this; a host alone in the run gets every slot.
            return true
        }
        guard self.hostsWithWork > (host.hasWork ? 1 : 0) else {
            return false
        }
        return host.running >= self.share(host)
    }

    /// The slots each host that shares them may hold, `host` counted among them.
    func share(_ host: Host) -> Int {
        self.share(among: self.activeHosts + (host.isActive ? 0 : 1))
    }

    /// The slots each of `hosts` hosts sharing them may hold (rounded up; at least one host).
    func share(among hosts: Int) -> Int {
        let sharing = max(1, hosts)
        return (self.slots + sharing - 1) / sharing
    }

    /// The transfer that ``block(_:queued:now:)`` let through starts: its host's token is taken.
    mutating func started(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        self.change(host) { host in
            host.running += 1
            host.counts.requests += 1
            if now &- host.windowStart >= 1_000_000_000 {
                host.windowStart = now
                host.windowStarts = 0
            }
            host.windowStarts += 1
            host.counts.peakPerSecond = max(host.counts.peakPerSecond, host.windowStarts)
            _ = host.bucket?.take(now: now)
            _ = host.spacing?.take(now: now)
        }
        if !host.multiplexes {
            self.sharingRunning += 1
        }
    }

    /// A transfer left the in-flight set: its host may take the next of its queue.
    mutating func stopped(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        self.change(host) { $0.running -= 1 }
        if !host.multiplexes {
            let wasFull = self.sharingRunning == self.slots && self.activeMultiplexing > 0
            self.sharedSlotFreed = self.sharedSlotFreed || wasFull
            self.sharingRunning -= 1
        }
        self.wake(host, now: now)
    }

    /// Puts `transfer` in its host's queue: at the back when it came from the batch's queue, back
    /// at the front when it came from the host's own or is a retry; and arranges for the queue to
    /// go on.
    mutating func park(_ transfer: Transfer, queued: Bool, block: Block, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        // The counts change before the wake-up, which judges the host's share by them as `block` did.
        self.change(host) { host in
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
        if queued {
            // It was the ready host at the front of `ready`.
            self.ready.removeFirst()
        }
        self.parkedCount += 1
        if case .token(let wait) = block {
            self.schedule(host, at: now &+ wait)
        } else {
            self.wake(host, now: now)
        }
    }

    /// Puts back a transfer ``nextReady()`` gave that did not start after all (the batch's rate).
    mutating func putBack(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        self.change(host) { $0.parked.prepend(transfer) }
        self.parkedCount += 1
    }

    /// The next transfer of the first ready host, taken out of its queue; `nil` when no host is ready.
    mutating func nextReady() -> Transfer? {
        while let host = self.ready.first {
            if let transfer = self.change(host, { $0.parked.popFirst() }) {
                self.parkedCount -= 1
                return transfer
            }
            self.ready.removeFirst()
            host.isReady = false
        }
        return nil
    }

    /// Makes `host`'s queue ready when it has work and budget for it, or schedules its wake-up.
    mutating func wake(_ host: Host, now: UInt64) {
        guard !host.parked.isEmpty, !host.isReady, host.wakeDue == 0 else {
            return
        }
        if let cap = self.limits.maxInFlight, host.running >= cap {
            return
        }
        if self.isOverShare(host) {
            self.awaitShare(host)
            return
        }
        if let wait = Self.tokenWait(host, now: now) {
            host.waitedForToken = true
            self.schedule(host, at: now &+ wait)
            return
        }
        host.isReady = true
        self.ready.append(host)
    }

    private mutating func schedule(_ host: Host, at due: UInt64) {
        guard host.wakeDue == 0 || host.wakeDue > due else {
            return
        }
        host.wakeDue = due
        self.wakes.insert(Wake(due: due, host: host))
    }

    /// Makes the hosts whose token is due ready.
    mutating func timerFired(now: UInt64) {
        while let next = self.wakes.min, next.due <= now {
            _ = self.wakes.removeMin()
            // A later wake-up replaced one that is still in the heap: only the latest counts.
            guard next.host.wakeDue == next.due else {
                continue
            }
            next.host.wakeDue = 0
            self.wake(next.host, now: now)
        }
    }

    /// Every transfer in the hosts' queues, which are emptied.
    mutating func removeAllParked() -> [Transfer] {
        var all: [Transfer] = []
        for host in self.hosts.values {
            self.change(host) { host in
                all += host.parked
                host.parked.removeAll()
            }
        }
        self.parkedCount = 0
        self.ready.removeAll()
        return all
    }

    /// A new host's budgets, in ``hosts``.
    mutating func add(_ key: Substring, now: UInt64) -> Host {
        // Forget idle hosts now and then, so that a list of a million hosts holds no million
        // entries; a host that comes back starts with a full bucket.
        if self.hosts.count >= 4096 {
            // Idle hosts are neither active nor hold work: the counts stay as they are.
            for host in self.hosts.values where host.isIdle {
                host.isForgotten = true
            }
            self.hosts = self.hosts.filter { !$0.value.isForgotten }
        }
        let host = Host()
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
        return host
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
