extension HostBudgets {
    // MARK: - the hosts' share of the slots

    /// `transfer` joined the batch's queue.
    mutating func enqueued(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        self.change(host) { $0.waiting += 1 }
    }

    /// Admission took `transfer` out of the batch's queue.
    mutating func dequeued(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        self.change(host) { host in
            if host.waiting > 0 {
                host.waiting -= 1
            }
        }
    }

    /// Puts a transfer whose retry (or pause) is due at the front of its host's queue, when the
    /// host has one: it goes before the requests the host holds back, which were never sent.
    /// - Returns: whether it did; otherwise the transfer goes to the front of the batch's queue.
    mutating func requeueFirst(_ transfer: Transfer, now: UInt64) -> Bool {
        let host = self.host(of: transfer, now: now)
        guard !host.parked.isEmpty else {
            return false
        }
        self.change(host) { $0.parked.prepend(transfer) }
        self.parkedCount += 1
        self.wake(host, now: now)
        return true
    }

    /// Keeps ``activeHosts``, ``hostsWithWork`` and ``activeMultiplexing`` in step with a host
    /// that changed from `before` to `after`.
    mutating func account(_ before: Standing, _ after: Standing) {
        let wasSharing = before.isActive && !before.multiplexes
        let isSharing = after.isActive && !after.multiplexes
        if wasSharing != isSharing {
            self.activeHosts += isSharing ? 1 : -1
        }
        let hadWork = before.hasWork && !before.multiplexes
        let hasWork = after.hasWork && !after.multiplexes
        if hadWork != hasWork {
            self.hostsWithWork += hasWork ? 1 : -1
        }
        let wasMultiplexing = before.isActive && before.multiplexes
        let isMultiplexing = after.isActive && after.multiplexes
        if wasMultiplexing != isMultiplexing {
            self.activeMultiplexing += isMultiplexing ? 1 : -1
        }
    }

    // MARK: - streams of their own, and shares that grow

    /// Slots beyond the engine's own: ``slots`` for each active host that multiplexes, with at most
    /// ``maxStreamsInFlight`` transfers in flight in all (or ``slots``, when more).
    var extraSlots: Int {
        guard self.activeMultiplexing > 0 else {
            return 0
        }
        let room = max(0, Self.maxStreamsInFlight - self.slots)
        let wanted = self.slots.multipliedReportingOverflow(by: self.activeMultiplexing)
        return wanted.overflow ? room : min(wanted.partialValue, room)
    }

    /// The most transfers in flight that hosts' own streams may bring the engine to.
    static var maxStreamsInFlight: Int { 1024 }

    /// `transfer`'s host answered over a protocol that multiplexes (HTTP/2, HTTP/3): with
    /// ``streamsPerHost``, it leaves the shared slots and gets ``slots`` streams of its own, as one
    /// host alone would have, instead of a share of connections' worth.
    mutating func multiplexed(_ transfer: Transfer, now: UInt64) {
        let host = self.host(of: transfer, now: now)
        guard self.streamsPerHost, !host.multiplexes else {
            return
        }
        self.change(host) { $0.multiplexes = true }
        self.sharingRunning -= host.running
        self.wake(host, now: now)
    }

    /// Notes that `host` waits at its share (or for the shared slots, all taken while hosts with
    /// streams of their own hold more).
    mutating func awaitShare(_ host: Host) {
        guard host.hasAnswered else {
            return
        }
        self.waitersShare = min(self.waitersShare, self.share(host))
        if !host.awaitsShare {
            host.awaitsShare = true
            self.shareWaiters.append(host)
        }
    }

    /// Wakes the hosts held at their share when it grew since (a host ran out of work, or one
    /// left the shared slots for streams of its own), so that they take the slots freed now
    /// rather than when one of their own transfers ends, which for a slow host is seconds later.
    mutating func wakeShareWaiters(now: UInt64) {
        guard !self.shareWaiters.isEmpty else {
            return
        }
        let grew = self.share(among: self.activeHosts) > self.waitersShare
        guard grew || self.hostsWithWork <= 1 || self.sharedSlotFreed else {
            return
        }
        self.sharedSlotFreed = false
        let waiters = self.shareWaiters
        self.shareWaiters.removeAll(keepingCapacity: true)
        self.waitersShare = Int.max
        for host in waiters {
            host.awaitsShare = false
            self.wake(host, now: now)
        }
    }
}
