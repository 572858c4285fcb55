import DequeModule
import HeapModule

extension EngineLoop {
    /// Every decision of the engine loop, as a value with no I/O: which request starts next, when a
    /// retry or a paused host is due, which identical requests share one transfer, what a
    /// cancellation drops, and when results are handed over.
    ///
    /// The loop (``EngineLoop``) owns libcurl: it takes the inbox, polls, and turns what libcurl
    /// reports into events here (``receive(_:decide:deliver:stop:)``,
    /// ``transferFinished(_:_:retryAfter:newConnections:now:)``, ``timerFired(now:)``); it asks for work with
    /// ``nextAdmission(now:)`` until there is none, and is told how long to sleep by
    /// ``passEnded(now:rateWait:deliver:)``. So the decisions are tested with made-up transfers,
    /// outcomes and clock values, without libcurl or a server.
    ///
    /// The two actions that may come out of an event in any number, handing results to a sink and
    /// stopping a transfer in flight, are non-escaping closures the loop passes in, not an array
    /// returned: at some 45k requests a second on one thread, an array per event costs an allocation
    /// each, and closures cost none. Everything else comes out as one small enum per call.
    ///
    /// Threading: a value owned by the engine loop, on the engine thread.
    struct StateMachine<Random: RandomNumberGenerator> {
        /// What the loop should do next to admit work.
        enum Admission {
            /// Start an attempt of this transfer (a handle, its options, the multi handle); report a
            /// failure to start with ``startFailed(_:_:now:)``.
            case start(Transfer)
            /// The rate limit holds back queued work: the next token is due in this many nanoseconds.
            case rateLimited(nanoseconds: UInt64)
            /// Nothing to start: the in-flight cap is reached or nothing is queued.
            case none
        }

        /// What the loop does at the end of a pass.
        enum Next: Equatable {
            /// Completions freed slots and work is queued: admit it now rather than after a poll.
            case admitAgain
            /// Sleep in `curl_multi_poll` for at most this long, unless woken.
            case poll(milliseconds: Int)
        }

        /// How many results gather before they are handed over while the loop keeps admitting work.
        /// Each hand-over may wake the consumer: fewer, larger ones cost less CPU, though no less
        /// beyond this size.
        static var deliveryBatch: Int { 32 }
        /// How many bytes of answers from the cache gather before they are handed over mid-inbox.
        static var deliveryBytes: Int { 256 * 1024 }

        let maxInFlight: Int
        let deduplicate: Bool
        let retry: RetryPolicy
        /// Whether each attempt's outcome goes into its transfer's ``TransferDetails/attempts``.
        let logsAttempts: Bool
        var random: Random
        /// Transfers waiting for a slot, in order; abandoned ones (no waiters) are skipped when they
        /// come up rather than searched for at cancellation.
        var pending = Deque<Transfer>()
        /// Retries and transfers held back by their host's `Retry-After`, by due time.
        var scheduled = Heap<ScheduledTransfer>()
        var scheduleSequence: UInt64 = 0
        /// The transfers with an attempt in flight, each knowing its place (``Transfer/runningSlot``),
        /// so that finishing one costs a swap, not a search or a hash.
        var running: [Transfer] = []
        /// Transfers by request, for de-duplication: queued, scheduled and running ones, which
        /// identical requests join, and finished ones the replay cache keeps, which answer them.
        var byRequest = TransferTable()
        var replay: ReplayCache
        var bucket: TokenBucket?
        /// Each host's share of the slots, with its queue, and the rates and in-flight caps the
        /// configuration sets. Always there; optional only so that its users read as before.
        var hostBudgets: HostBudgets?
        /// Whether the configuration set host limits, so that runs report each host's counts.
        let reportsHosts: Bool
        /// Hosts that failed to connect lately, and which of them are down.
        var health = HostHealth()
        let skipsDownHosts: Bool
        /// The latest clock value an event brought, for the host budgets of transfers stopped
        /// by a cancellation (which comes without one).
        var lastNow: UInt64
        /// Hosts that answered 429 or 503 with `Retry-After`: nothing starts for them until then.
        var hostPauses: [Substring: UInt64] = [:]
        var outbox = Outbox()
        /// The batches given up (``cancel(_:stop:)``), kept so their identifiers stay theirs: their
        /// later submissions are dropped unsent. One entry per batch cancelled early.
        var closedSinks: [ObjectIdentifier: ResultSink] = [:]
        /// Transfers the replay cache let go, handed with the next delivery to its sink, whose
        /// consumer frees them (``ResultSink/retire(_:)``).
        var retired = RetiredTransfers()
        /// Origins' rules and their preflights, when the configuration has an ``OriginPolicy``.
        var gate: OriginGate?

        init(configuration: Engine.Configuration, random: Random, now: UInt64) {
            self.maxInFlight = configuration.maxInFlight
            // With a cookie jar an answer depends on what earlier answers set: identical requests
            // may be answered differently, so none is joined to another.
            let deduplicate = configuration.deduplicate && configuration.cookies?.keepsJar != true
            self.deduplicate = deduplicate
            self.retry = configuration.retry
            self.logsAttempts = configuration.details.contains(.attempts)
            self.random = random
            self.lastNow = now
            self.replay = ReplayCache(limit: deduplicate ? configuration.replayCacheBytes : 0)
            if let limit = configuration.rateLimit {
                self.bucket = TokenBucket(rate: limit.requestsPerSecond, burst: Double(limit.burst), now: now)
            }
            self.hostBudgets = HostBudgets(
                limits: configuration.hostLimits ?? Engine.HostLimits(), slots: configuration.maxInFlight,
                streamsPerHost: configuration.httpVersion != .http1_1)
            self.reportsHosts = configuration.hostLimits != nil
            self.skipsDownHosts = configuration.skipsDownHosts
            self.gate = configuration.originPolicy.map { OriginGate(policy: $0) }
        }

        /// Results waiting to be handed over.
        var undelivered: Int { self.outbox.count }
        /// Transfers queued for a slot (in the batch's queue or a host's), abandoned ones included.
        var queued: Int {
            self.pending.count + (self.hostBudgets?.parkedCount ?? 0) + (self.gate?.heldCount ?? 0)
        }

        // MARK: - the inbox

        /// Takes one inbox: its submissions, then its cancellations.
        ///
        /// Submissions first: a batch given up right after it handed over more requests has both in
        /// one inbox, and cancelling first left those requests to run.
        ///
        /// - Parameters:
        ///   - decide: the store's decision for a request, when the engine has a store.
        ///   - deliver: hands results to a sink; called when cache answers pile up mid-inbox.
        ///   - stop: removes a transfer in flight whose every waiter was cancelled.
        mutating func receive(
            _ inbox: EngineCore.Inbox,
            decide: ((Request) -> StoreDecision)?,
            deliver: (ResultSink, [FetchResult]) -> Void,
            stop: (Transfer) -> Void
        ) {
            var inbox = inbox
            if !self.closedSinks.isEmpty {
                // A batch's feeder may hand over requests after the batch was given up: unsent.
                inbox.submissions.removeAll { self.closedSinks[ObjectIdentifier($0.sink)] != nil }
            }
            if let decide {
                self.accept(inbox.submissions, decide: decide, deliver: deliver)
            } else {
                for submission in inbox.submissions {
                    self.accept(submission, request: nil, waiter: Waiter(submission))
                }
            }
            for sink in inbox.cancellations {
                self.cancel(sink, stop: stop)
            }
        }

        private mutating func accept(
            _ submissions: [EngineCore.Submission],
            decide: (Request) -> StoreDecision,
            deliver: (ResultSink, [FetchResult]) -> Void
        ) {
            var answeredBytes = 0
            for submission in submissions {
                switch decide(submission.request) {
                case .answer(let outcome, let source):
                    self.outbox.append(
                        submission.sink,
                        FetchResult(
                            index: submission.index, request: submission.request, outcome: outcome, attempts: 0,
                            cache: source))
                    // Hand answers over while deciding the rest, so the consumer works on them
                    // meanwhile instead of waiting for the whole inbox (a warm crawl's 11 filter
                    // lists are 9.6 MB read from the store).
                    answeredBytes += (try? outcome.get())?.body.count ?? 0
                    if self.outbox.count >= Self.deliveryBatch || answeredBytes >= Self.deliveryBytes {
                        self.deliver(to: deliver)
                        answeredBytes = 0
                    }
                case .send(let wire, let ticket):
                    self.accept(submission, request: wire, waiter: Waiter(submission, ticket: ticket))
                }
            }
        }

        /// Queues the submission's request, or the cache's conditional form of it (`wire`), for
        /// `waiter`, joining a transfer of the same request or answering from the replay cache when it can.
        private mutating func accept(_ submission: EngineCore.Submission, request wire: Request?, waiter: Waiter) {
            let request = wire ?? submission.request
            // The submitter hashed its own request; the cache's conditional form is hashed here.
            // Requests that are not idempotent are sent as often as they are asked for: two POSTs
            // of an order are two orders.
            let hash =
                self.deduplicate && request.method.isIdempotent ? (wire?.hashValue ?? submission.hash) : nil
            if let hash, let transfer = self.byRequest.find(request, hash: hash) {
                if let outcome = transfer.replayOutcome {
                    self.outbox.append(submission.sink, Self.sharedResult(for: waiter, of: transfer, request, outcome))
                } else {
                    transfer.waiters.append(waiter)
                }
                return
            }
            let transfer = Transfer(request: request, hash: hash, waiter: waiter, submittedAt: submission.submittedAt)
            if let hash {
                self.byRequest.insert(transfer, hash: hash)
                transfer.isIndexed = true
            }
            self.pending.append(transfer)
            self.hostBudgets?.enqueued(transfer, now: self.lastNow)
        }

        /// Drops `sink`'s waiters everywhere, and every transfer left with none; a sink that keeps
        /// its answered results (``ResultSink/isInterrupting``) gets an `interrupted` result for
        /// each waiter dropped. The sink's later submissions are refused unsent.
        private mutating func cancel(_ sink: ResultSink, stop: (Transfer) -> Void) {
            self.closedSinks[ObjectIdentifier(sink)] = sink
            let interrupting = sink.isInterrupting
            var unanswered: [FetchResult] = []
            let drop: (Transfer) -> Bool = { transfer in
                var position = 0
                transfer.waiters.removeAll { waiter in
                    guard waiter.sink === sink else {
                        position += 1
                        return false
                    }
                    if interrupting {
                        // Attempts on the first waiter's result only, as a finished transfer's.
                        unanswered.append(
                            FetchResult(
                                index: waiter.index, request: transfer.request, outcome: .failure(.interrupted),
                                attempts: position == 0 ? transfer.attempts : 0, storeTicket: waiter.ticket))
                    }
                    position += 1
                    return true
                }
                return transfer.waiters.isEmpty
            }
            defer {
                for result in unanswered {
                    self.outbox.append(sink, result)
                }
            }
            for transfer in self.pending where drop(transfer) {
                self.forget(transfer)
            }
            for entry in self.scheduled.unordered where drop(entry.transfer) {
                self.forget(entry.transfer)
            }
            if let hosts = self.hostBudgets?.hosts {
                for host in hosts.values {
                    for transfer in host.parked where drop(transfer) {
                        self.forget(transfer)
                    }
                }
            }
            for transfer in self.gate?.dropHeld(where: drop) ?? [] {
                self.forget(transfer)
            }
            // Backwards, so that the swap in `removeRunning` brings in only transfers already seen.
            var slot = self.running.count - 1
            while slot >= 0 {
                let transfer = self.running[slot]
                if drop(transfer) {
                    self.forget(transfer)
                    self.removeRunning(transfer)
                    self.endProbe(of: transfer)
                    stop(transfer)
                }
                slot -= 1
            }
            // Abandoned transfers left in `pending` and `scheduled` are skipped when they come up.
        }

        /// Takes a transfer out of the de-duplication table (nobody waits for it, it finished
        /// unkept, or the replay cache let it go); later identical requests get a transfer of their own.
        mutating func forget(_ transfer: Transfer) {
            guard transfer.isIndexed, let hash = transfer.hash else {
                return
            }
            transfer.isIndexed = false
            self.byRequest.remove(transfer, hash: hash)
        }

        // MARK: - admission

        /// The next transfer to start, if there is room, a queued transfer whose host is not paused,
        /// and a rate-limit token. The loop calls it until it returns something other than `.start`.
        mutating func nextAdmission(now: UInt64) -> Admission {
            self.nextAdmissionByHost(now: now)
        }

        /// Starts `transfer`'s next attempt: counted, its first start noted, and running.
        mutating func begin(_ transfer: Transfer, now: UInt64) -> Admission {
            transfer.attempts += 1
            if transfer.startedAt == 0 {
                transfer.startedAt = now
            }
            transfer.runningSlot = self.running.count
            self.running.append(transfer)
            return .start(transfer)
        }

        /// The loop could not start the attempt ``nextAdmission(now:)`` gave it: the request ends
        /// with `error`, unretried, and the attempt is not counted.
        mutating func startFailed(_ transfer: Transfer, _ error: FetchError, now: UInt64) {
            self.lastNow = max(self.lastNow, now)
            self.removeRunning(transfer)
            self.endProbe(of: transfer)
            // Nothing was sent (a body file that cannot be opened, no handle): not an attempt, nor
            // in the attempt log, and a request none of whose attempts started has no time of its
            // own either. The result's error says what happened.
            transfer.attempts -= 1
            if transfer.attempts == 0 {
                transfer.startedAt = 0
            }
            self.finish(transfer, .failure(error), now: now)
        }

        /// A transfer left without an outcome that says anything of its host: if it was the host's
        /// probe, another request may probe.
        mutating func endProbe(of transfer: Transfer) {
            if transfer.isProbe {
                transfer.isProbe = false
                self.health.probeEnded(transfer.hostKey)
            }
        }

        mutating func removeRunning(_ transfer: Transfer) {
            let slot = transfer.runningSlot
            precondition(
                slot >= 0 && slot < self.running.count && self.running[slot] === transfer, "transfer not running")
            let last = self.running.removeLast()
            if last !== transfer {
                self.running[slot] = last
                last.runningSlot = slot
            }
            transfer.runningSlot = -1
            self.hostBudgets?.stopped(transfer, now: self.lastNow)
        }
    }
}
