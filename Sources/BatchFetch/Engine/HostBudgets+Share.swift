extension HostBudgets {
    // MARK: - the hosts' share of the slots

    /// A transfer for `key` joined the batch's queue.
    mutating func enqueued(_ key: Substring, now: UInt64) {
        if self.change(key, { $0.waiting += 1 }) == nil {
            self.add(key, now: now)
            self.change(key) { $0.waiting += 1 }
        }
    }

    /// Admission took a transfer for `key` out of the batch's queue.
    mutating func dequeued(_ key: Substring) {
        self.change(key) { host in
            if host.waiting > 0 {
                host.waiting -= 1
            }
        }
    }

    /// Puts a transfer whose retry (or pause) is due at the front of its host's queue, when the
    /// host has one: it goes before the requests the host holds back, which were never sent.
    /// - Returns: whether it did; otherwise the transfer goes to the front of the batch's queue.
    mutating func requeueFirst(_ transfer: Transfer, _ key: Substring, now: UInt64) -> Bool {
        let queued = self.change(key) { host in
            guard !host.parked.isEmpty else {
                return false
            }
            host.parked.prepend(transfer)
            return true
        }
        guard queued == true else {
            return false
        }
        self.parkedCount += 1
        self.wake(key, now: now)
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

    /// `key`'s host answered over a protocol that multiplexes (HTTP/2, HTTP/3): with
    /// ``streamsPerHost``, it leaves the shared slots and gets ``slots`` streams of its own, as one
    /// host alone would have, instead of a share of connections' worth.
    mutating func multiplexed(_ key: Substring, now: UInt64) {
        guard self.streamsPerHost else {
            return
        }
        let running = self.change(key) { host -> Int? in
            guard !host.multiplexes else {
                return nil
            }
            host.multiplexes = true
            return host.running
        }
        guard let running = running ?? nil else {
            return
        }
        self.sharingRunning -= running
        self.wake(key, now: now)
    }

    /// Notes that `key`'s host, at `index` in ``hosts``, waits at its share (or for the shared
    /// slots, all taken while hosts with streams of their own hold more).
    mutating func awaitShare(_ key: Substring, at index: Dictionary<Substring, Host>.Index) {
        self.waitersShare = min(self.waitersShare, self.share(self.hosts.values[index]))
        if !self.hosts.values[index].awaitsShare {
            self.hosts.values[index].awaitsShare = true
            self.shareWaiters.append(key)
        }
    }

    /// Wakes the hosts held at their share when it grew since (a host ran out of work, or one
    /// left the shared slots for streams of its own), so that they take the slots freed now
    /// rather than when one of their own transfers ends, which for a slow host is seconds later.
    mutating func wakeShareWaiters(now: UInt64) {
        guard !self.shareWaiters.isEmpty else {
            return
        }
        let share = (self.slots + max(1, self.activeHosts) - 1) / max(1, self.activeHosts)
        guard share > self.waitersShare || self.hostsWithWork <= 1 || self.sharedSlotFreed else {
            return
        }
        self.sharedSlotFreed = false
        let waiters = self.shareWaiters
        self.shareWaiters.removeAll(keepingCapacity: true)
        self.waitersShare = Int.max
        for key in waiters {
            self.hosts[key]?.awaitsShare = false
            self.wake(key, now: now)
        }
    }
}
