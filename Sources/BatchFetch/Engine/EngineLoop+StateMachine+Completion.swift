import HeapModule

extension EngineLoop.StateMachine {
    // MARK: - completion

    /// An attempt ended: pause its host if the server asked, then retry it later or deliver its
    /// outcome to every waiter.
    ///
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After`, already converted to a delay from `now`.
    ///   - newConnections: the connections the attempt opened, failed or not.
    ///   - now: the monotonic clock in nanoseconds.
    mutating func transferFinished(
        _ transfer: Transfer, _ outcome: Result<Response, FetchError>, retryAfter: Duration?,
        newConnections: Int = 0, now: UInt64
    ) {
        self.lastNow = max(self.lastNow, now)
        self.removeRunning(transfer)
        transfer.newConnections += newConnections
        guard !transfer.waiters.isEmpty else {
            return
        }
        if self.logsAttempts {
            // The attempt's time: its response's, or what its handle gathered as it failed.
            let time = (try? outcome.get())?.timings.total ?? transfer.details?.timings?.total
            Self.log(outcome, of: transfer, retryAfter: retryAfter, time: time)
        }
        var status: Int? = nil
        var errorKind: FetchError.Kind? = nil
        var unreached = false
        switch outcome {
        case .success(let response):
            status = response.status
            transfer.budget?.hasAnswered = true
            if response.httpVersion == .http2 || response.httpVersion == .http3 {
                self.hostBudgets?.multiplexed(transfer, now: now)
            }
        case .failure(let error):
            errorKind = error.kind
            unreached = self.skipsDownHosts && HostHealth.counts(error)
        }
        let (decision, gaveUp) = self.retry.decision(
            attempt: transfer.attempts,
            method: transfer.request.method,
            status: status,
            error: errorKind,
            retryAfter: retryAfter,
            using: &self.random
        )
        var pause: Duration? = nil
        if status == 429 || status == 503 {
            // The server throttled this host: no request to it before the pause ends, not only
            // this one; without a Retry-After, until this request's backoff ends, so that its
            // neighbours do not go on drawing 429s meanwhile.
            // With --adaptive the host's rate is cut instead: a pause at each 429 a probe past the
            // limit draws (a second or more, doubling) cost W8 3× its ideal time.
            let adapts = self.hostBudgets?.limits.adaptive == true
            if case .retry(let delay) = decision, !adapts {
                pause = retryAfter ?? delay
            } else {
                pause = retryAfter
            }
        }
        if let pause {
            let until = now &+ UInt64(max(0, pause.nanoseconds))
            let host = transfer.hostKey
            self.hostPauses[host] = max(self.hostPauses[host] ?? 0, until)
            if self.hostPauses.count > 1024 {
                self.hostPauses = self.hostPauses.filter { $0.value > now }
            }
        }
        let key = transfer.hostKey
        if unreached {
            self.health.failed(key, probe: transfer.isProbe, now: now)
        } else if !self.health.isEmpty, status != nil || errorKind == .transport {
            self.health.answered(key)
        }
        transfer.isProbe = false
        if self.reportsHosts {
            if let status {
                self.hostBudgets?.host(key)?.counts.statuses[status, default: 0] += 1
            }
            if status == 429 || status == 503 || errorKind == .timeout || errorKind == .connectFailed {
                self.hostBudgets?.throttled(key, now: now, paused: pause != nil)
            } else if status != nil {
                self.hostBudgets?.answered(key, now: now)
            }
            if pause != nil {
                self.hostBudgets?.host(key)?.counts.pauses += 1
            }
        }
        switch decision {
        case .retry(let delay):
            // A retry for a host that is suspect or down goes straight back to admission, which
            // holds it for the host's probe or fails it, rather than waiting out its backoff.
            let wait = self.health.isSuspectOrDown(key) ? 0 : UInt64(max(0, delay.nanoseconds))
            self.schedule(transfer, at: now &+ wait)
        case .done:
            self.finish(transfer, outcome, now: now, gaveUp: gaveUp)
        }
    }

    /// Delivers `outcome` to every waiter of `transfer`, which ended at `now`, and keeps it for
    /// replay; `gaveUp` says why a retryable outcome was not retried, on the owner's result.
    mutating func finish(
        _ transfer: Transfer, _ outcome: Result<Response, FetchError>, now: UInt64,
        gaveUp: RetryPolicy.GiveUp? = nil
    ) {
        if transfer.preflight != nil {
            self.preflightEnded(transfer, outcome, now: now)
            return
        }
        if self.deduplicate {
            if transfer.isIndexed, let hash = transfer.hash,
                let cost = self.replay.cost(of: outcome, request: transfer.request)
            {
                // It stays in the table, where later identical requests find its outcome.
                while let evicted = self.replay.evict(toFit: cost) {
                    // Out of the table by identity and the hash kept beside it: the evicted
                    // transfer itself is not read (`forget` would read and write it).
                    self.byRequest.remove(evicted.transfer, hash: evicted.hash)
                    if evicted.cost <= Self.retiredBytes {
                        self.retired.transfers.append(evicted.transfer)
                    }
                }
                self.replay.keep(transfer, outcome: outcome, hash: hash, cost: cost)
            } else {
                self.forget(transfer)
            }
        }
        let waiters = transfer.waiters
        transfer.waiters = []
        guard let owner = waiters.first else {
            return
        }
        transfer.ownerIndex = owner.index
        transfer.ownerTag = owner.tag
        // From the first attempt's start: every attempt, and the waits between them.
        let total = transfer.startedAt == 0 ? nil : Duration.nanoseconds(Int64(now &- transfer.startedAt))
        self.outbox.append(
            owner.sink,
            FetchResult(
                index: owner.index, request: transfer.request, outcome: outcome, attempts: transfer.attempts,
                storeTicket: owner.ticket, totalTime: total, newConnections: transfer.newConnections,
                gaveUp: gaveUp, details: transfer.details))
        for waiter in waiters.dropFirst() {
            self.outbox.append(waiter.sink, Self.sharedResult(for: waiter, of: transfer, transfer.request, outcome))
        }
    }

    /// The largest replay entry (body, URL and 256 bytes) whose freeing is left to a consumer
    /// (``retired``); larger ones are one big buffer, freed here, which a consumer would hold for
    /// nothing until it next takes results.
    static var retiredBytes: Int { 16 * 1024 }

    /// The result for `waiter` of a transfer it shared with the finished transfer's owner: no
    /// attempts or time of its own, so that counting attempts counts what went on the wire. It
    /// carries what the store needs to complete it when it let the request through.
    static func sharedResult(
        for waiter: Waiter, of transfer: Transfer, _ request: Request, _ outcome: Result<Response, FetchError>
    ) -> FetchResult {
        FetchResult(
            index: waiter.index, request: request, outcome: outcome, attempts: 0, storeTicket: waiter.ticket,
            sharedWith: transfer.ownerIndex, sharedWithTag: transfer.ownerTag, details: transfer.details)
    }

    /// Adds an attempt's outcome to its transfer's details, made here when it has none yet (an
    /// attempt that never reached libcurl).
    static func log(
        _ outcome: Result<Response, FetchError>, of transfer: Transfer, retryAfter: Duration?, time: Duration?
    ) {
        let details = transfer.details ?? TransferDetails()
        transfer.details = details
        switch outcome {
        case .success(let response):
            details.append(
                TransferDetails.Attempt(status: response.status, error: nil, retryAfter: retryAfter, time: time))
        case .failure(let error):
            details.append(
                TransferDetails.Attempt(status: error.status, error: error, retryAfter: retryAfter, time: time))
        }
    }

    // MARK: - timers

    mutating func schedule(_ transfer: Transfer, at due: UInt64) {
        self.scheduleSequence &+= 1
        self.scheduled.insert(ScheduledTransfer(due: due, sequence: self.scheduleSequence, transfer: transfer))
    }

    /// Moves transfers whose retry (or host pause) is due to the front of the queue, in due order.
    mutating func timerFired(now: UInt64) {
        if self.hostBudgets != nil {
            self.lastNow = max(self.lastNow, now)
            self.hostBudgets?.timerFired(now: now)
        }
        guard let first = self.scheduled.min, first.due <= now else {
            return
        }
        var due: [Transfer] = []
        while let next = self.scheduled.min, next.due <= now {
            _ = self.scheduled.removeMin()
            if !next.transfer.waiters.isEmpty {
                due.append(next.transfer)
            }
        }
        for transfer in due.reversed() {
            if self.hostBudgets?.requeueFirst(transfer, now: now) != true {
                self.pending.prepend(transfer)
                self.hostBudgets?.enqueued(transfer, now: now)
            }
        }
    }

    // MARK: - the end of a pass

    /// Decides, after admitting and collecting completions, whether the loop goes round again at
    /// once or sleeps, and hands results over as it decides.
    ///
    /// Results wait for a later pass unless a batch of them has gathered: a hand-over may wake the
    /// consumer (a futex wake-up and a context switch on both sides), so fewer, larger ones cost
    /// less. They go out at the latest before the loop sleeps.
    ///
    /// - Parameter rateWait: what the last ``nextAdmission(now:)`` said about the rate limit.
    mutating func passEnded(now: UInt64, rateWait: UInt64?, deliver: (ResultSink, [FetchResult]) -> Void) -> Next {
        if self.running.count < self.slotLimit, !self.pending.isEmpty || self.hasReadyHost, rateWait == nil {
            if self.outbox.count >= Self.deliveryBatch {
                self.deliver(to: deliver)
            }
            return .admitAgain
        }
        self.deliver(to: deliver)
        return .poll(milliseconds: self.pollTimeout(now: now, rateWait: rateWait))
    }

    /// Until the next retry, or the next rate-limit token when work waits for one; a second at most.
    private func pollTimeout(now: UInt64, rateWait: UInt64?) -> Int {
        var wait: UInt64 = 1_000_000_000
        if let next = self.scheduled.min {
            wait = min(wait, next.due > now ? next.due - now : 0)
        }
        if let next = self.hostBudgets?.wakes.min {
            wait = min(wait, next.due > now ? next.due - now : 0)
        }
        if let rateWait, !self.pending.isEmpty {
            wait = min(wait, rateWait)
        }
        // Round up: waking a little late costs nothing, waking early spins.
        return Int((wait + 999_999) / 1_000_000)
    }

    /// Hands collected results over, one hand-over per run of results for the same sink.
    mutating func deliver(to deliver: (ResultSink, [FetchResult]) -> Void) {
        guard let sink = self.outbox.lastSink else {
            return
        }
        self.outbox.drain(deliver)
        if !self.retired.transfers.isEmpty {
            sink.retire(&self.retired)
            self.retired.transfers.removeAll(keepingCapacity: true)
        }
    }

    // MARK: - shutdown

    /// Ends everything outstanding as cancelled: stops the transfers in flight, and delivers a
    /// `cancelled` result to every waiter.
    mutating func shutdown(now: UInt64, stop: (Transfer) -> Void, deliver: (ResultSink, [FetchResult]) -> Void) {
        var waiting: [Transfer] = Array(self.pending)
        waiting += self.scheduled.unordered.map(\.transfer)
        waiting += self.hostBudgets?.removeAllParked() ?? []
        waiting += self.gate?.removeAllHeld() ?? []
        for transfer in self.running {
            transfer.runningSlot = -1
            waiting.append(transfer)
            stop(transfer)
        }
        self.running.removeAll()
        for transfer in waiting where !transfer.waiters.isEmpty {
            self.finish(transfer, .failure(.cancelled), now: now)
        }
        self.pending.removeAll()
        self.scheduled = Heap()
        self.deliver(to: deliver)
    }
}
