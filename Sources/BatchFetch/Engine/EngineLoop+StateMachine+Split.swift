extension EngineLoop.StateMachine {
    // MARK: - split downloads (`--split-min`)

    /// Whether slots are free with nothing waiting for them: queued, held at a host, due for a
    /// retry or behind an origin's preflight. Only then does a running download give part of its
    /// body to a new connection (``SplitDownload``).
    var hasIdleSlots: Bool {
        self.running.count < self.slotLimit && self.pending.isEmpty && self.scheduled.isEmpty
            && !self.hasReadyHost && (self.hostBudgets?.parkedCount ?? 0) == 0 && (self.gate?.heldCount ?? 0) == 0
    }

    /// Whether a helper for `transfer`'s download may start now: the rate limits and its host's
    /// cap and share hold for helpers as for any request.
    mutating func mayStartHelper(of transfer: Transfer, now: UInt64) -> Bool {
        if self.bucket != nil, self.bucket?.wait(now: now) != nil {
            return false
        }
        return self.hostBudgets?.block(transfer, queued: true, now: now) == nil
    }

    /// Starts a split download's helper: it holds a slot and counts on its host like any transfer,
    /// and ends with ``helperEnded(_:now:)`` (or a cancellation, which drops it: it has no waiters).
    mutating func beginHelper(_ helper: Transfer, now: UInt64) {
        self.lastNow = max(self.lastNow, now)
        _ = self.bucket?.take(now: now)
        self.hostBudgets?.started(helper, now: now)
        _ = self.begin(helper, now: now)
    }

    /// A helper ended or was stopped: its slot comes free, once.
    mutating func helperEnded(_ helper: Transfer, now: UInt64) {
        self.lastNow = max(self.lastNow, now)
        if helper.runningSlot >= 0 {
            self.removeRunning(helper)
        }
    }

    /// A split download's parent, whose helper failed after the parent's own part ended, goes
    /// back to the front of the queue to ask for the rest (its ``Transfer/resume``).
    mutating func restart(_ transfer: Transfer, now: UInt64) {
        self.lastNow = max(self.lastNow, now)
        self.removeRunning(transfer)
        if self.hostBudgets?.requeueFirst(transfer, now: now) != true {
            self.pending.prepend(transfer)
            self.hostBudgets?.enqueued(transfer, now: now)
        }
    }
}
