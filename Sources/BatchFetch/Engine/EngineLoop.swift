import DequeModule
import Foundation
import HeapModule

/// The engine thread's loop: admits queued transfers into the multi handle up to the cap, drives
/// libcurl, turns finished attempts into results or scheduled retries, and delivers results.
///
/// One iteration: take the inbox → fire due retries → admit → `curl_multi_perform` → collect
/// finished transfers → deliver → `curl_multi_poll` until a socket, a libcurl timer, the next retry
/// or rate-limit token, or a wake-up from another thread. Retries and `Retry-After` pauses live on
/// a timer heap, so a delayed retry that is the last outstanding transfer still fires (curl's own
/// `--parallel --retry` hung on exactly that: curl issues 5905 and 20669).
///
/// Threading: created and run on the engine thread only.
final class EngineLoop {
    private let configuration: Engine.Configuration
    private let core: EngineCore
    /// The on-disk cache: answers fresh submissions before they become transfers; the results of
    /// the rest carry what the consumer needs to complete (store) them.
    private let cache: HTTPCache?
    let multi: CurlMulti
    /// The header fields of every request, and the libcurl list of them its handles share.
    private let defaultFields: [HeaderField]
    private let defaultHeaders: CurlHeaderList
    /// TLS sessions shared by this loop's easy handles (`nil` if libcurl could not make one).
    private let share: CurlShare?

    private var idle: [CurlEasy] = []
    /// Every handle this loop made, idle or transferring (at most the in-flight cap): cancellation
    /// and shutdown find the busy ones, those with a transfer, here. A count, not a map of busy
    /// handles, is what each request updates.
    private var handles: [CurlEasy] = []
    private var busyCount = 0
    private var pending = Deque<Transfer>()
    private var scheduled = Heap<ScheduledTransfer>()
    private var scheduleSequence: UInt64 = 0
    private var inFlight: [RequestKey: Transfer] = [:]
    private var replay: ReplayCache
    private var bucket: TokenBucket?
    private var hostPauses: [Substring: UInt64] = [:]
    private var outbox: [(sink: ResultSink, result: FetchResult)] = []
    private var random = SystemRandomNumberGenerator()

    /// How many results gather before they are handed over while the loop keeps admitting work.
    /// Each hand-over may wake the consumer. W1 `fetch`, two runs of 8 interleaved rounds: 16 → 32
    /// cut CPU 4% and 1.5% and wall time 6% and 2%; 64 measured the same as 32.
    private static let deliveryBatch = 32
    /// How many bytes of answers from the cache gather before they are handed over mid-inbox.
    private static let deliveryBytes = 256 * 1024

    init(configuration: Engine.Configuration, core: EngineCore, cache: HTTPCache?) throws(FetchError) {
        self.configuration = configuration
        self.core = core
        self.cache = cache
        self.multi = try CurlMulti(configuration: configuration)
        self.defaultFields = configuration.fieldsSent
        self.defaultHeaders = CurlHeaderList(self.defaultFields)
        self.share = CurlShare()
        self.replay = ReplayCache(limit: configuration.deduplicate ? configuration.replayCacheBytes : 0)
        if let limit = configuration.rateLimit {
            self.bucket = TokenBucket(
                rate: limit.requestsPerSecond, burst: Double(limit.burst), now: MonotonicClock.now())
        }
    }

    /// Runs until shutdown is requested, then cancels everything outstanding.
    func run() {
        while true {
            let inbox = self.core.takeInbox()
            // Submissions before cancellations: a batch given up right after it handed over more
            // requests has both in one inbox, and cancelling first left those requests to run.
            self.accept(inbox.submissions)
            for sink in inbox.cancellations {
                self.cancel(sink)
            }
            if inbox.shutdown {
                break
            }
            var now = MonotonicClock.now()
            self.fireDue(now: now)
            let rateWait = self.admit(now: now)
            self.multi.perform()
            self.multi.drainCompleted { easy in
                self.complete(easy)
            }
            now = MonotonicClock.now()
            if self.busyCount < self.configuration.maxInFlight, !self.pending.isEmpty, rateWait == nil {
                // Completions freed slots and work is queued: admit it now rather than after a poll.
                // Results wait for a later pass unless a batch of them has gathered: a hand-over
                // may wake the consumer (a futex wake-up and a context switch on both sides), so
                // fewer, larger ones cost less. They go out at the latest before the loop sleeps.
                if self.outbox.count >= Self.deliveryBatch {
                    self.flushOutbox()
                }
                continue
            }
            self.flushOutbox()
            let timeout = self.pollTimeout(now: now, rateWait: rateWait)
            if self.core.prepareToSleep() {
                self.multi.poll(milliseconds: timeout)
            }
        }
        self.shutdown()
    }

    // MARK: - submissions

    private func accept(_ submissions: [EngineCore.Submission]) {
        guard let cache = self.cache, !submissions.isEmpty else {
            for submission in submissions {
                self.accept(submission, request: submission.request, waiter: Waiter(submission))
            }
            return
        }
        // One read of the store for everything taken from the inbox at once.
        cache.deciding { decider in
            var answeredBytes = 0
            for submission in submissions {
                switch decider.decide(submission.request) {
                case .answer(let outcome, let source):
                    self.outbox.append(
                        (
                            submission.sink,
                            FetchResult(
                                index: submission.index, request: submission.request, outcome: outcome, attempts: 0,
                                cache: source)
                        ))
                    // Hand answers over while deciding the rest, so the consumer works on them
                    // meanwhile instead of waiting for the whole inbox (a warm crawl's 11 filter
                    // lists are 9.6 MB read from the store).
                    answeredBytes += (try? outcome.get())?.body.count ?? 0
                    if self.outbox.count >= Self.deliveryBatch || answeredBytes >= Self.deliveryBytes {
                        self.flushOutbox()
                        answeredBytes = 0
                    }
                case .send(let wire, let pending):
                    self.accept(submission, request: wire, waiter: Waiter(submission, cache: .init(pending)))
                case .bypass:
                    self.accept(submission, request: submission.request, waiter: Waiter(submission, cache: .init(nil)))
                }
            }
        }
    }

    /// Queues `request` (the submission's, or the cache's conditional form of it) for `waiter`,
    /// joining a transfer of the same request or answering from the replay cache when it can.
    private func accept(_ submission: EngineCore.Submission, request: Request, waiter: Waiter) {
        // Hash the request once; every map below then hashes one Int.
        let key = self.configuration.deduplicate ? RequestKey(request) : nil
        if let key {
            if let transfer = self.inFlight[key] {
                transfer.waiters.append(waiter)
                return
            }
            if let (outcome, attempts) = self.replay[key] {
                self.outbox.append(
                    (submission.sink, self.result(for: waiter, request: request, outcome, attempts: attempts)))
                return
            }
        }
        let transfer = Transfer(
            request: request, key: key, waiter: waiter, submittedAt: submission.submittedAt)
        if let key {
            self.inFlight[key] = transfer
        }
        self.pending.append(transfer)
    }

    private func cancel(_ sink: ResultSink) {
        let drop: (Transfer) -> Bool = { transfer in
            transfer.waiters.removeAll { $0.sink === sink }
            return transfer.waiters.isEmpty
        }
        for transfer in self.pending where drop(transfer) {
            self.forget(transfer)
        }
        for entry in self.scheduled.unordered where drop(entry.transfer) {
            self.forget(entry.transfer)
        }
        for easy in self.handles {
            guard let transfer = easy.transfer, drop(transfer) else {
                continue
            }
            self.forget(transfer)
            self.multi.remove(easy)
            self.release(easy)
        }
        // Abandoned transfers left in `pending` and `scheduled` are skipped when they come up.
    }

    /// Removes a transfer nobody waits for from the de-duplication map.
    private func forget(_ transfer: Transfer) {
        // One lookup: remove, and put back the rare later transfer of the same request.
        guard let key = transfer.key, let removed = self.inFlight.removeValue(forKey: key), removed !== transfer else {
            return
        }
        self.inFlight[key] = removed
    }

    // MARK: - admission

    /// Starts queued transfers while there is room and a rate-limit token.
    /// - Returns: nanoseconds until the next token when the rate limit stopped admission.
    private func admit(now: UInt64) -> UInt64? {
        while self.busyCount < self.configuration.maxInFlight, let transfer = self.pending.first {
            if transfer.waiters.isEmpty {
                self.pending.removeFirst()
                continue
            }
            if !self.hostPauses.isEmpty, let until = self.hostPauses[transfer.hostKey] {
                self.pending.removeFirst()
                if until > now {
                    self.schedule(transfer, at: until)
                    continue
                }
                self.hostPauses[transfer.hostKey] = nil
                self.pending.prepend(transfer)
            }
            if self.bucket != nil, let wait = self.bucket?.take(now: now) {
                return wait
            }
            self.pending.removeFirst()
            self.start(transfer, now: now)
        }
        return nil
    }

    private func start(_ transfer: Transfer, now: UInt64) {
        transfer.attempts += 1
        if transfer.startedAt == 0 {
            transfer.startedAt = now
        }
        guard let easy = self.idle.popLast() ?? self.makeHandle() else {
            self.finish(transfer, .failure(FetchError(kind: .other, message: "libcurl could not allocate a handle")))
            return
        }
        if let error = easy.prepare(for: transfer) ?? self.multi.add(easy) {
            easy.reset()
            self.idle.append(easy)
            self.finish(transfer, .failure(error))
            return
        }
        transfer.easy = easy
        self.busyCount += 1
    }

    private func makeHandle() -> CurlEasy? {
        let easy = CurlEasy(
            configuration: self.configuration, defaultFields: self.defaultFields,
            defaultHeaders: self.defaultHeaders, share: self.share)
        if let easy {
            self.handles.append(easy)
        }
        return easy
    }

    /// Takes back a busy handle whose transfer was removed from the multi handle unfinished.
    private func release(_ easy: CurlEasy) {
        easy.transfer?.easy = nil
        easy.reset()
        self.busyCount -= 1
        self.idle.append(easy)
    }

    // MARK: - completion

    private func complete(_ easy: CurlEasy) {
        guard let transfer = easy.transfer else {
            preconditionFailure("completed easy handle carries no transfer")
        }
        let queued = Duration.nanoseconds(Int64(transfer.startedAt &- transfer.submittedAt))
        let (outcome, retryAfterValue) = easy.finish(queued: queued)
        self.busyCount -= 1
        transfer.easy = nil
        self.idle.append(easy)
        guard !transfer.waiters.isEmpty else {
            return
        }
        var status: Int? = nil
        var errorKind: FetchError.Kind? = nil
        switch outcome {
        case .success(let response): status = response.status
        case .failure(let error): errorKind = error.kind
        }
        let retryAfter = retryAfterValue.flatMap { parseRetryAfter($0, now: Date()) }
        let now = MonotonicClock.now()
        if let retryAfter, status == 429 || status == 503 {
            // The server throttled this host: no request to it before the pause ends, not only this one.
            let until = now &+ UInt64(max(0, retryAfter.nanoseconds))
            let host = transfer.hostKey
            self.hostPauses[host] = max(self.hostPauses[host] ?? 0, until)
            if self.hostPauses.count > 1024 {
                self.hostPauses = self.hostPauses.filter { $0.value > now }
            }
        }
        let decision = self.configuration.retry.decide(
            attempt: transfer.attempts,
            method: transfer.request.method,
            status: status,
            error: errorKind,
            retryAfter: retryAfter,
            using: &self.random
        )
        switch decision {
        case .retry(let delay):
            self.schedule(transfer, at: now &+ UInt64(max(0, delay.nanoseconds)))
        case .done:
            self.finish(transfer, outcome)
        }
    }

    private func finish(_ transfer: Transfer, _ outcome: Result<Response, FetchError>) {
        if self.configuration.deduplicate {
            self.forget(transfer)
            if let key = transfer.key {
                self.replay.insert(key, outcome: outcome, attempts: transfer.attempts)
            }
        }
        for waiter in transfer.waiters {
            self.outbox.append(
                (waiter.sink, self.result(for: waiter, request: transfer.request, outcome, attempts: transfer.attempts))
            )
        }
        transfer.waiters = []
    }

    /// The result for `waiter`, carrying what the cache needs to complete it when it let the
    /// request through.
    private func result(
        for waiter: Waiter, request: Request, _ outcome: Result<Response, FetchError>, attempts: Int
    ) -> FetchResult {
        var result = FetchResult(index: waiter.index, request: request, outcome: outcome, attempts: attempts)
        result.cacheCompletion = waiter.cache
        return result
    }

    /// Delivers collected results, one hand-over per run of results for the same batch.
    private func flushOutbox() {
        guard !self.outbox.isEmpty else {
            return
        }
        var start = 0
        while start < self.outbox.count {
            let sink = self.outbox[start].sink
            var end = start + 1
            while end < self.outbox.count && self.outbox[end].sink === sink {
                end += 1
            }
            sink.deliver(self.outbox[start..<end].map(\.result))
            start = end
        }
        self.outbox.removeAll(keepingCapacity: true)
    }

    // MARK: - timers

    private func schedule(_ transfer: Transfer, at due: UInt64) {
        self.scheduleSequence &+= 1
        self.scheduled.insert(ScheduledTransfer(due: due, sequence: self.scheduleSequence, transfer: transfer))
    }

    /// Moves transfers whose retry time has come to the front of the queue.
    private func fireDue(now: UInt64) {
        var due: [Transfer] = []
        while let next = self.scheduled.min, next.due <= now {
            _ = self.scheduled.removeMin()
            if !next.transfer.waiters.isEmpty {
                due.append(next.transfer)
            }
        }
        for transfer in due.reversed() {
            self.pending.prepend(transfer)
        }
    }

    private func pollTimeout(now: UInt64, rateWait: UInt64?) -> Int {
        var wait: UInt64 = 1_000_000_000
        if let next = self.scheduled.min {
            wait = min(wait, next.due > now ? next.due - now : 0)
        }
        if let rateWait, !self.pending.isEmpty {
            wait = min(wait, rateWait)
        }
        // Round up: waking a little late costs nothing, waking early spins.
        return Int((wait + 999_999) / 1_000_000)
    }

    // MARK: - shutdown

    private func shutdown() {
        var waiting: [Transfer] = Array(self.pending)
        waiting += self.scheduled.unordered.map(\.transfer)
        for easy in self.handles {
            guard let transfer = easy.transfer else {
                continue
            }
            waiting.append(transfer)
            self.multi.remove(easy)
            self.release(easy)
        }
        for transfer in waiting where !transfer.waiters.isEmpty {
            self.finish(transfer, .failure(.cancelled))
        }
        self.pending.removeAll()
        self.scheduled = Heap()
        self.flushOutbox()
        let late = self.core.loopStopped()
        EngineCore.answerCancelled(late.submissions)
        self.idle.removeAll()
        self.handles.removeAll()
    }
}

@available(*, unavailable)
extension EngineLoop: Sendable {}
