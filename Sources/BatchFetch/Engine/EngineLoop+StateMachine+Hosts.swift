extension EngineLoop.StateMachine {
    // MARK: - admission with per-host budgets

    /// Transfers in flight at most now: the slots, and the streams of hosts that multiplex.
    var slotLimit: Int { self.maxInFlight + (self.hostBudgets?.extraSlots ?? 0) }

    /// Requests held in their hosts' queues or waiting for a retry (``EngineCore/waitingAtHosts``).
    var waitingAtHosts: Int { (self.hostBudgets?.parkedCount ?? 0) + self.scheduled.count }

    /// Whether a host's queue may go on now.
    var hasReadyHost: Bool { !(self.hostBudgets?.ready.isEmpty ?? true) }

    /// ``nextAdmission(now:)`` when hosts have budgets of their own (``Engine/HostLimits``).
    ///
    /// Ready hosts' queues come first, then the batch's queue. A transfer whose host has no token
    /// or is at its cap moves to that host's queue and admission goes on with the next one, so a
    /// list sorted by host keeps every host it has read busy, not only the first.
    mutating func nextAdmissionByHost(now: UInt64) -> Admission {
        self.lastNow = max(self.lastNow, now)
        self.hostBudgets?.wakeShareWaiters(now: now)
        while self.running.count < self.slotLimit {
            let transfer: Transfer
            let key: Substring
            let queued: Bool
            if let next = self.hostBudgets?.nextReady() {
                (transfer, key, queued) = (next, next.hostKey, true)
            } else if let next = self.pending.popFirst() {
                (transfer, key, queued) = (next, next.hostKey, false)
                self.hostBudgets?.dequeued(next, now: now)
            } else {
                return .none
            }
            if transfer.waiters.isEmpty {
                continue
            }
            if self.gate != nil, self.gateStops(transfer, now: now) {
                continue
            }
            if !self.hostPauses.isEmpty, let until = self.hostPauses[key] {
                if until > now {
                    self.schedule(transfer, at: until)
                    continue
                }
                self.hostPauses[key] = nil
            }
            if self.bucket != nil, let wait = self.bucket?.wait(now: now) {
                if queued {
                    self.hostBudgets?.putBack(transfer, now: now)
                } else {
                    self.pending.prepend(transfer)
                    self.hostBudgets?.enqueued(transfer, now: now)
                }
                return .rateLimited(nanoseconds: wait)
            }
            if let block = self.hostBudgets?.block(transfer, queued: queued, now: now) {
                self.hostBudgets?.park(transfer, queued: queued, block: block, now: now)
                continue
            }
            // Last, so that a host's probe, once chosen, starts.
            if !self.health.isEmpty {
                switch self.health.admit(key, now: now) {
                case .go(let probe):
                    transfer.isProbe = probe
                case .hold(let until):
                    self.schedule(transfer, at: until)
                    continue
                case .fail(let error):
                    if self.logsAttempts {
                        Self.log(.failure(error), of: transfer, retryAfter: nil, time: nil)
                    }
                    self.finish(transfer, .failure(error), now: now)
                    continue
                }
            }
            _ = self.bucket?.take(now: now)
            self.hostBudgets?.started(transfer, now: now)
            return self.begin(transfer, now: now)
        }
        return .none
    }

    /// Each host's counts so far (``HostCounts``), by host as its URLs name it; none unless the
    /// configuration set host limits.
    var hostCounts: [String: HostCounts] {
        var counts: [String: HostCounts] = [:]
        guard self.reportsHosts else {
            return counts
        }
        for (key, host) in self.hostBudgets?.hosts ?? [:] {
            counts[String(key)] = host.counts
        }
        return counts
    }
}
