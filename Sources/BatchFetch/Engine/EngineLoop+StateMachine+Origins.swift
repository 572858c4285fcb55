extension EngineLoop.StateMachine {
    // MARK: - origins' rules (an ``OriginPolicy``)

    /// Whether the origin gate keeps `transfer` from starting now: held for its origin's rules
    /// (their preflight queued first when it is the origin's first request), or refused by them and
    /// finished unsent.
    mutating func gateStops(_ transfer: Transfer, now: UInt64) -> Bool {
        guard !transfer.passedGate, transfer.preflight == nil, var verdict = self.gate?.admit(transfer) else {
            return false
        }
        if case .ruled(let interval) = verdict {
            if let interval {
                self.hostBudgets?.space(transfer.hostKey, by: interval, now: now)
            }
            guard let ruled = self.gate?.admit(transfer) else {
                return false
            }
            verdict = ruled
        }
        switch verdict {
        case .go:
            transfer.passedGate = true
            return false
        case .held:
            return true
        case .heldFor(let preflight):
            self.pending.prepend(preflight)
            self.hostBudgets?.enqueued(preflight, now: now)
            return true
        case .refused(let error):
            // Nothing was sent: no attempt, and no attempt in the log either.
            self.finish(transfer, .failure(error), now: now)
            return true
        case .ruled:
            // Asked again once the rules are in place: not reached.
            return false
        }
    }

    /// A preflight ended (after its retries): its next hop goes first, or its origin's rules are
    /// known and the requests held for them go back to admission, ahead of what came later.
    mutating func preflightEnded(_ transfer: Transfer, _ outcome: Result<Response, FetchError>, now: UInt64) {
        transfer.waiters = []
        guard let origin = transfer.preflight?.origin,
            let (next, released, interval) = self.gate?.preflightEnded(transfer, outcome)
        else {
            return
        }
        if let next {
            self.pending.prepend(next)
            self.hostBudgets?.enqueued(next, now: now)
        }
        if let interval, let schemeEnd = origin.range(of: "://") {
            self.hostBudgets?.space(origin[schemeEnd.upperBound...], by: interval, now: now)
        }
        for held in released.reversed() {
            self.pending.prepend(held)
            self.hostBudgets?.enqueued(held, now: now)
        }
    }
}
