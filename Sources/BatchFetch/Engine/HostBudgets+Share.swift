extension HostBudgets {
    // MARK: - the hosts' share of the slots

    /// A transfer for `key` joined the batch's queue.
    mutating func enqueued(_ key: Substring, now: UInt64) {
        if self.hosts[key] == nil {
            self.add(key, now: now)
        }
        guard let before = self.hosts[key] else {
            return
        }
        self.hosts[key]?.waiting += 1
        self.account(before, key)
    }

    /// Admission took a transfer for `key` out of the batch's queue.
    mutating func dequeued(_ key: Substring) {
        guard let before = self.hosts[key], before.waiting > 0 else {
            return
        }
        self.hosts[key]?.waiting -= 1
        self.account(before, key)
    }

    /// Puts a transfer whose retry (or pause) is due at the front of its host's queue, when the
    /// host has one: it goes before the requests the host holds back, which were never sent.
    /// - Returns: whether it did; otherwise the transfer goes to the front of the batch's queue.
    mutating func requeueFirst(_ transfer: Transfer, _ key: Substring, now: UInt64) -> Bool {
        guard let before = self.hosts[key], !before.parked.isEmpty else {
            return false
        }
        self.hosts[key]?.parked.prepend(transfer)
        self.parkedCount += 1
        self.account(before, key)
        self.wake(key, now: now)
        return true
    }

    /// Keeps ``activeHosts`` and ``hostsWithWork`` in step with a host that changed from `before`.
    mutating func account(_ before: Host, _ key: Substring) {
        guard let after = self.hosts[key] else {
            return
        }
        self.account(before, after)
    }

    mutating func account(_ before: Host, _ after: Host) {
        if before.isActive != after.isActive {
            self.activeHosts += after.isActive ? 1 : -1
        }
        if before.hasWork != after.hasWork {
            self.hostsWithWork += after.hasWork ? 1 : -1
        }
    }
}
