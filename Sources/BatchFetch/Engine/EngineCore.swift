import Synchronization

/// The part of an engine that other threads touch: the inbox of submissions and cancellations the
/// engine thread drains, and the engine thread's lifecycle.
///
/// Threading: any thread. All state sits behind one `Mutex`, held only for appends and swaps,
/// never across a libcurl call other than `curl_multi_wakeup` (which must not race the multi
/// handle's cleanup, so it is called under the lock).
final class EngineCore: Sendable {
    /// A request handed to the engine thread.
    struct Submission: Sendable {
        let request: Request
        let index: Int
        let sink: ResultSink
        let submittedAt: UInt64
        /// The request's hash, taken by the submitting thread rather than the engine thread, which
        /// sets the pace on small documents; the de-duplication table's key.
        let hash: Int

        init(request: Request, index: Int, sink: ResultSink, submittedAt: UInt64) {
            self.request = request
            self.index = index
            self.sink = sink
            self.submittedAt = submittedAt
            self.hash = request.hashValue
        }
    }

    /// What the engine thread takes from the inbox in one go.
    struct Inbox {
        var submissions: [Submission] = []
        var cancellations: [ResultSink] = []
        var shutdown = false
    }

    private enum Lifecycle {
        /// The engine thread is starting; submissions queue up.
        case starting
        /// The engine thread runs and can be woken.
        case running(CurlWakeup)
        /// The engine thread has exited (or never started); submissions are answered `cancelled`.
        case stopped
    }

    private struct State {
        var inbox = Inbox()
        var lifecycle = Lifecycle.starting
        /// The engine thread is (about to be) blocked in `curl_multi_poll` and needs a wake-up.
        var sleeping = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
        /// The engine thread has released every libcurl handle and returned.
        var exited = false
        /// The engine loop exists, and with it the multi handle and the easy handles: from
        /// ``loopStarted(wakeup:)`` until it is released (``loopReleased()``).
        var loopAlive = false
        /// Whether the loop was still alive when the thread said it exited.
        var exitedWithLoopAlive = false
    }

    private let state = Mutex(State())

    // MARK: - any thread

    /// Queues requests for the engine thread and wakes it if it sleeps.
    func submit(_ submissions: [Submission]) {
        guard !submissions.isEmpty else {
            return
        }
        let accepted = self.state.withLock { state -> Bool in
            if case .stopped = state.lifecycle {
                return false
            }
            if state.inbox.shutdown {
                return false
            }
            state.inbox.submissions.append(contentsOf: submissions)
            self.wakeLocked(&state)
            return true
        }
        if !accepted {
            EngineCore.answerCancelled(submissions)
        }
    }

    /// Asks the engine thread to drop every transfer of `sink`'s batch.
    /// - Returns: whether it will: `false` when the engine thread is not running.
    @discardableResult
    func cancel(_ sink: ResultSink) -> Bool {
        self.state.withLock { state in
            if case .stopped = state.lifecycle {
                return false
            }
            state.inbox.cancellations.append(sink)
            self.wakeLocked(&state)
            return true
        }
    }

    /// Asks the engine thread to cancel everything and exit. Idempotent.
    func requestShutdown() {
        self.state.withLock { state in
            state.inbox.shutdown = true
            self.wakeLocked(&state)
        }
    }

    /// Waits until the engine thread has exited.
    func waitForExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let exited = self.state.withLock { state -> Bool in
                if state.exited {
                    return true
                }
                state.exitWaiters.append(continuation)
                return false
            }
            if exited {
                continuation.resume()
            }
        }
    }

    /// Whether the engine thread said it exited while its loop, and so libcurl handles, were still
    /// alive: ``waitForExit()`` would then return, and its caller perhaps exit the process, while
    /// libcurl still cleans up on that thread. Always `false`; tests check that it stays so.
    var exitedWithLibcurlHandlesAlive: Bool {
        self.state.withLock { $0.exitedWithLoopAlive }
    }

    private func wakeLocked(_ state: inout State) {
        if state.sleeping, case .running(let wakeup) = state.lifecycle {
            state.sleeping = false
            wakeup.wake()
        }
    }

    static func answerCancelled(_ submissions: [Submission]) {
        for submission in submissions {
            let error: FetchError = submission.sink.isInterrupting ? .interrupted : .cancelled
            submission.sink.deliver([
                FetchResult(index: submission.index, request: submission.request, outcome: .failure(error), attempts: 0)
            ])
        }
    }

    /// Answers what reached the inbox after the engine loop stopped: its submissions as cancelled,
    /// and its cancellations as done (``ResultSink/interruptionDone()``), so no consumer waits.
    static func answerLate(_ inbox: Inbox) {
        Self.answerCancelled(inbox.submissions)
        for sink in inbox.cancellations {
            sink.interruptionDone()
        }
    }

    // MARK: - engine thread

    /// The engine thread is up and can be woken through `wakeup`.
    func loopStarted(wakeup: CurlWakeup) {
        self.state.withLock { state in
            state.lifecycle = .running(wakeup)
            state.loopAlive = true
        }
    }

    /// The engine loop is being released; its libcurl handles go right after, on this thread.
    func loopReleased() {
        self.state.withLock { state in
            state.loopAlive = false
        }
    }

    /// Takes everything queued since the last call.
    func takeInbox() -> Inbox {
        self.state.withLock { state in
            state.sleeping = false
            var inbox = Inbox()
            swap(&inbox, &state.inbox)
            // Shutdown stays requested: later submissions must be refused too.
            state.inbox.shutdown = inbox.shutdown
            return inbox
        }
    }

    /// Marks the engine thread as about to sleep, unless work arrived meanwhile.
    /// - Returns: whether it may sleep.
    func prepareToSleep() -> Bool {
        self.state.withLock { state in
            let idle = state.inbox.submissions.isEmpty && state.inbox.cancellations.isEmpty && !state.inbox.shutdown
            state.sleeping = idle
            return idle
        }
    }

    /// Each host's counts when the loop stopped (``Engine/hostStatistics``).
    let hostCounts = Mutex<[String: HostCounts]>([:])

    /// Requests waiting in their hosts' queues (at their share, cap or rate) or for a retry, as the
    /// engine thread last saw them: batches read that many further ahead, so that a dead or slow
    /// host's waiting requests do not use up the read-ahead that other hosts' work needs.
    let waitingAtHosts = Atomic<Int>(0)
    /// The credits of batches fed from an async input, which are lent a credit per request waiting
    /// at its host (``publishWaiting(_:)``); by the feeder's guard.
    private let streamedCredits = Mutex<[ObjectIdentifier: Credits]>([:])
    private let streamedCount = Atomic<Int>(0)

    /// Engine thread: `count` requests now wait in host queues or for a retry.
    func publishWaiting(_ count: Int) {
        self.waitingAtHosts.store(count, ordering: .relaxed)
        guard self.streamedCount.load(ordering: .relaxed) > 0 else {
            return
        }
        // Lent under the registry's lock (a credit's own lock is taken inside it, never the other way
        // round), so that no array of the batches is made each time the count changes.
        self.streamedCredits.withLock { batches in
            for batch in batches.values {
                batch.lend(Swift.min(count, BatchIterator.maxOutstanding))
            }
        }
    }

    /// A streamed batch's credits, lent to while it is registered.
    func register(_ credits: Credits, for owner: AnyObject) {
        self.streamedCredits.withLock { $0[ObjectIdentifier(owner)] = credits }
        self.streamedCount.add(1, ordering: .relaxed)
    }

    func unregister(_ owner: AnyObject) {
        let removed = self.streamedCredits.withLock { $0.removeValue(forKey: ObjectIdentifier(owner)) }
        if removed != nil {
            self.streamedCount.subtract(1, ordering: .relaxed)
        }
    }

    /// The engine loop has stopped (or failed to start): refuse further work and wake-ups, before
    /// the multi handle is cleaned up.
    /// - Returns: submissions that arrived too late, for the caller to answer.
    func loopStopped() -> Inbox {
        self.state.withLock { state in
            state.lifecycle = .stopped
            state.sleeping = false
            var inbox = Inbox()
            swap(&inbox, &state.inbox)
            state.inbox.shutdown = true
            return inbox
        }
    }

    /// The engine thread has released every libcurl handle: wake those waiting in ``waitForExit()``.
    func threadExited() {
        let waiters = self.state.withLock { state in
            state.exited = true
            state.exitedWithLoopAlive = state.loopAlive
            let waiters = state.exitWaiters
            state.exitWaiters = []
            return waiters
        }
        for waiter in waiters {
            waiter.resume()
        }
    }
}
