import Synchronization

/// Where the engine thread leaves the results of one batch for its consumer.
///
/// The engine thread appends (one lock per loop iteration, not per result); the consumer takes
/// everything buffered at once, waiting only when nothing is. Once cancelled, results are dropped.
///
/// Threading: ``deliver(_:)`` from the engine thread, ``take()`` from the one consuming task.
final class ResultSink: Sendable {
    private struct State {
        var buffer: [FetchResult] = []
        var waiter: UnsafeContinuation<[FetchResult], Never>?
        var cancelled = false
        /// The consuming task was cancelled: ``take()`` no longer waits.
        var woken = false
        /// The consumer asked to stop the batch and keep what was answered (``interrupt()``).
        var interrupting = false
        /// The engine has dropped the batch's transfers and handed over everything it held for it.
        var interrupted = false
        /// The consumer waiting for ``interrupted``.
        var interruptWaiter: UnsafeContinuation<[FetchResult], Never>?
        /// How many requests the input produced in all, once it has ended (streamed input only).
        var inputTotal: Int?
        /// How many results were delivered in all.
        var delivered = 0
        /// Transfers the engine let go, for the consumer to free (``retire(_:)``).
        var retired = RetiredTransfers()
    }

    /// How many let-go transfers a sink holds for its consumer at most; beyond, the engine frees them.
    static var retiredLimit: Int { 256 }

    private let state = Mutex(State())

    /// Hands results to the consumer, waking it if it waits.
    func deliver(_ results: [FetchResult]) {
        let waiter: UnsafeContinuation<[FetchResult], Never>? = self.state.withLock { state in
            guard !state.cancelled else {
                return nil
            }
            state.delivered += results.count
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            // The array itself when none waits before it: appending would copy each result.
            if state.buffer.isEmpty {
                state.buffer = results
            } else {
                state.buffer.append(contentsOf: results)
            }
            return nil
        }
        waiter?.resume(returning: results)
    }

    /// Takes transfers the engine no longer needs (its replay cache let them go), so that freeing
    /// them (the transfer, its request, its response's buffers, long out of cache) costs the
    /// consumer's thread, not the engine's, which sets the pace on small documents. The consumer
    /// frees them when it next takes results. Leaves in `retired` what it does not take:
    /// everything once it holds ``retiredLimit``, or once cancelled.
    func retire(_ retired: inout RetiredTransfers) {
        self.state.withLock { state in
            guard !state.cancelled, state.retired.transfers.count < Self.retiredLimit else {
                return
            }
            if state.retired.transfers.isEmpty {
                swap(&state.retired, &retired)
            } else {
                state.retired.transfers.append(contentsOf: retired.transfers)
                retired.transfers.removeAll(keepingCapacity: true)
            }
        }
    }

    /// How many let-go transfers wait for the consumer to free them.
    var retiredCount: Int { self.state.withLock { $0.retired.transfers.count } }

    /// Records that a streamed input ended after `total` requests, waking a waiting consumer.
    func inputEnded(total: Int) {
        let waiter: UnsafeContinuation<[FetchResult], Never>? = self.state.withLock { state in
            state.inputTotal = total
            // Wake the consumer only if nothing more will come: it then sees the end.
            guard state.delivered == total else {
                return nil
            }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [])
    }

    /// The total announced by ``inputEnded(total:)``, if the input has ended.
    var inputTotal: Int? { self.state.withLock { $0.inputTotal } }

    /// Waits for results and takes all that are buffered.
    /// - Returns: at least one result; or an empty array when the consuming task was cancelled or
    ///   a streamed input ended (see ``inputTotal``).
    func take() async -> [FetchResult] {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<[FetchResult], Never>) in
                // Freed here, on the consumer's thread, after the lock.
                var retired = RetiredTransfers()
                let ready: [FetchResult]? = self.state.withLock { state in
                    swap(&retired, &state.retired)
                    if !state.buffer.isEmpty {
                        var taken: [FetchResult] = []
                        swap(&taken, &state.buffer)
                        return taken
                    }
                    if state.cancelled || state.woken || state.inputTotal == state.delivered {
                        return []
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
                retired.transfers.removeAll()
            }
        } onCancel: {
            // Wakes the consumer but keeps what is buffered: a consumer that keeps answered
            // results takes them (``takeInterrupted()``); one that does not cancels the batch.
            let waiter = self.state.withLock { state in
                state.woken = true
                let waiter = state.waiter
                state.waiter = nil
                return waiter
            }
            waiter?.resume(returning: [])
        }
    }

    // MARK: - interrupting, keeping what was answered

    /// Marks the batch as stopping with its answered results kept: when the engine drops its
    /// transfers, it delivers an ``FetchError/interrupted`` result for each request they leave
    /// unanswered, then calls ``interruptionDone()``. The consumer then asks the engine to cancel
    /// this sink and waits in ``takeInterrupted()``.
    func interrupt() {
        self.state.withLock { $0.interrupting = true }
    }

    /// Whether the consumer stops the batch keeping its answered results (engine thread).
    var isInterrupting: Bool { self.state.withLock { $0.interrupting } }

    /// The engine has handed over all it held for this batch (or has stopped): wakes the consumer
    /// in ``takeInterrupted()``. Idempotent.
    func interruptionDone() {
        let handOver: (UnsafeContinuation<[FetchResult], Never>, [FetchResult])? = self.state.withLock { state in
            guard !state.interrupted else {
                return nil
            }
            state.interrupted = true
            guard let waiter = state.interruptWaiter else {
                return nil
            }
            state.interruptWaiter = nil
            state.cancelled = true
            var taken: [FetchResult] = []
            swap(&taken, &state.buffer)
            return (waiter, taken)
        }
        if let (waiter, results) = handOver {
            waiter.resume(returning: results)
        }
    }

    /// Waits, whether or not the consuming task is cancelled, until the engine has handed over
    /// everything of an interrupted batch (``interruptionDone()``), and takes it; the sink accepts
    /// nothing more after.
    func takeInterrupted() async -> [FetchResult] {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<[FetchResult], Never>) in
            let taken: [FetchResult]? = self.state.withLock { state in
                guard state.interrupted else {
                    state.interruptWaiter = continuation
                    return nil
                }
                state.cancelled = true
                var taken: [FetchResult] = []
                swap(&taken, &state.buffer)
                return taken
            }
            if let taken {
                continuation.resume(returning: taken)
            }
        }
    }

    /// Stops accepting results and releases a waiting consumer.
    func cancel() {
        let waiter = self.state.withLock { state in
            state.cancelled = true
            state.buffer = []
            state.retired = RetiredTransfers()
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [])
    }
}
