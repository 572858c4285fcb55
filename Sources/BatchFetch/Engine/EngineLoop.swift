import Foundation

/// The engine thread's loop: admits queued transfers into the multi handle up to the cap, drives
/// libcurl, turns finished attempts into results or scheduled retries, and delivers results.
///
/// The loop performs; its ``StateMachine`` decides (admission, rate limit, host pauses, retries,
/// de-duplication, cache answers, cancellation, when to hand results over), so that those
/// decisions are tested without libcurl. The loop keeps what touches libcurl: the multi handle,
/// the pool of easy handles, polling, and the response store's reads.
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
    /// The response store (the on-disk cache): answers fresh submissions before they become
    /// transfers; the results of the rest carry what the consumer needs to complete (store) them.
    private let store: (any ResponseStore)?
    let multi: CurlMulti
    /// The header fields of every request, and the libcurl list of them its handles share.
    private let defaultFields: [HeaderField]
    private let defaultHeaders: CurlHeaderList
    /// TLS sessions shared by this loop's easy handles (`nil` if libcurl could not make one), and
    /// their cookies when the engine keeps a jar.
    private let share: CurlShare?
    private let cookieJar: CurlCookieJar?

    /// Handles without a transfer. A busy handle is reached through its transfer
    /// (``Transfer/easy``), which the state machine holds while the attempt is in flight.
    var idle: [CurlEasy] = []
    var machine: StateMachine<SystemRandomNumberGenerator>
    /// ``Engine/Configuration/effectiveSplitMinimum``: whether and how running downloads are split.
    private let splitMinimum: Int?
    /// Split downloads whose helpers a cancellation stopped, settled after it.
    var unsettled: [SplitDownload] = []
    /// What ``EngineCore/waitingAtHosts`` was last set to: written only when it changes.
    private var publishedWaiting = 0

    init(configuration: Engine.Configuration, core: EngineCore, store: (any ResponseStore)?) throws(FetchError) {
        self.configuration = configuration
        self.core = core
        self.store = store
        self.multi = try CurlMulti(configuration: configuration)
        self.defaultFields = configuration.fieldsSent
        self.defaultHeaders = CurlHeaderList(self.defaultFields)
        let jarCookies = configuration.cookies.flatMap { $0.keepsJar ? $0 : nil }
        let share = CurlShare(sharingCookies: jarCookies != nil)
        self.share = share
        if let jarCookies, let share {
            self.cookieJar = CurlCookieJar(jarCookies, share: share)
        } else {
            self.cookieJar = nil
        }
        self.splitMinimum = configuration.effectiveSplitMinimum
        self.machine = StateMachine(
            configuration: configuration, random: SystemRandomNumberGenerator(), now: MonotonicClock.now())
    }

    deinit {
        self.core.loopReleased()
    }

    /// Runs until shutdown is requested, then cancels everything outstanding.
    func run() {
        while true {
            let inbox = self.core.takeInbox()
            self.receive(inbox)
            if inbox.shutdown {
                break
            }
            var now = MonotonicClock.now()
            if !self.unsettled.isEmpty {
                self.settleStopped(now: now)
            }
            self.machine.timerFired(now: now)
            let rateWait = self.admit(now: now)
            self.multi.perform()
            self.multi.drainCompleted { easy in
                self.complete(easy)
            }
            now = MonotonicClock.now()
            if let minimum = self.splitMinimum {
                self.splitTail(minimum: minimum, now: now)
            }
            let waiting = self.machine.waitingAtHosts
            if waiting != self.publishedWaiting {
                self.publishedWaiting = waiting
                self.core.publishWaiting(waiting)
            }
            switch self.machine.passEnded(now: now, rateWait: rateWait, deliver: Self.deliver) {
            case .admitAgain:
                continue
            case .poll(let milliseconds):
                if self.core.prepareToSleep() {
                    self.multi.poll(milliseconds: milliseconds)
                }
            }
        }
        self.shutdown()
    }

    /// The one way results leave the engine thread.
    private static func deliver(_ sink: ResultSink, _ results: [FetchResult]) {
        sink.deliver(results)
    }

    private func receive(_ inbox: EngineCore.Inbox) {
        defer {
            if !inbox.cancellations.isEmpty {
                // Everything the cancelled batches were owed (their answered results, and their
                // requests left unanswered as `interrupted`) goes before the word that it has gone.
                self.machine.deliver(to: Self.deliver)
                for sink in inbox.cancellations {
                    sink.interruptionDone()
                }
            }
        }
        guard let store = self.store, !inbox.submissions.isEmpty else {
            self.machine.receive(inbox, decide: nil, deliver: Self.deliver, stop: self.stop)
            return
        }
        // One read of the store for everything taken from the inbox at once.
        store.deciding { decide in
            // `receive` keeps `decide` no longer than the call; it takes an optional closure,
            // which is escaping by type.
            withoutActuallyEscaping(decide) { decide in
                self.machine.receive(inbox, decide: decide, deliver: Self.deliver, stop: self.stop)
            }
        }
    }

    // MARK: - handles

    /// Starts what the state machine admits.
    /// - Returns: nanoseconds until the next token when the rate limit stopped admission.
    private func admit(now: UInt64) -> UInt64? {
        while true {
            switch self.machine.nextAdmission(now: now) {
            case .start(let transfer):
                self.start(transfer, now: now)
            case .rateLimited(let wait):
                return wait
            case .none:
                return nil
            }
        }
    }

    private func start(_ transfer: Transfer, now: UInt64) {
        guard let easy = self.idle.popLast() ?? self.makeHandle() else {
            self.machine.startFailed(
                transfer, FetchError(kind: .other, message: "libcurl could not allocate a handle"), now: now)
            return
        }
        if let error = easy.prepare(for: transfer) ?? self.multi.add(easy) {
            easy.reset()
            self.idle.append(easy)
            self.machine.startFailed(transfer, error, now: now)
            return
        }
        transfer.easy = easy
    }

    func makeHandle() -> CurlEasy? {
        CurlEasy(
            configuration: self.configuration, defaultFields: self.defaultFields,
            defaultHeaders: self.defaultHeaders, share: self.share)
    }

    /// Takes a transfer the state machine stopped out of the multi handle, unfinished.
    func stop(_ transfer: Transfer) {
        if transfer.part != nil {
            self.partStopped(transfer)
        }
        guard let easy = transfer.easy else {
            return
        }
        self.multi.remove(easy)
        transfer.easy = nil
        easy.reset()
        self.idle.append(easy)
    }

    private func complete(_ easy: CurlEasy) {
        guard let transfer = easy.transfer else {
            preconditionFailure("completed easy handle carries no transfer")
        }
        // A redirect the handle follows itself: the same attempt goes on with the next hop.
        if easy.prepareNextHop() {
            guard let error = self.multi.add(easy) else {
                return
            }
            easy.failHop(error)
        }
        let queued = Duration.nanoseconds(Int64(transfer.startedAt &- transfer.submittedAt))
        if !self.configuration.details.isEmpty && transfer.details == nil {
            transfer.details = TransferDetails()
        }
        let (outcome, retryAfterValue, connections) = easy.finish(queued: queued, details: transfer.details)
        transfer.easy = nil
        self.idle.append(easy)
        let retryAfter = retryAfterValue.flatMap { parseRetryAfter($0, now: Date()) }
        if transfer.part != nil {
            self.partFinished(
                transfer, outcome, retryAfter: retryAfter, newConnections: connections, now: MonotonicClock.now())
            return
        }
        self.machine.transferFinished(
            transfer, outcome, retryAfter: retryAfter, newConnections: connections, now: MonotonicClock.now())
    }

    // MARK: - shutdown

    private func shutdown() {
        if self.machine.hostBudgets != nil {
            let counts = self.machine.hostCounts
            self.core.hostCounts.withLock { $0 = counts }
        }
        self.machine.shutdown(now: MonotonicClock.now(), stop: self.stop, deliver: Self.deliver)
        let late = self.core.loopStopped()
        EngineCore.answerLate(late)
        for download in self.unsettled {
            download.dissolve()
        }
        self.unsettled.removeAll()
        self.idle.removeAll()
        self.cookieJar?.close()
    }
}

@available(*, unavailable)
extension EngineLoop: Sendable {}
