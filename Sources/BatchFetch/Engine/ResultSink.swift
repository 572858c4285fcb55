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
        /// How many requests the input produced in all, once it has ended (streamed input only).
        var inputTotal: Int?
        /// How many results were delivered in all.
        var delivered = 0
    }

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
            state.buffer.append(contentsOf: results)
            return nil
        }
        waiter?.resume(returning: results)
    }

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
                let ready: [FetchResult]? = self.state.withLock { state in
                    if !state.buffer.isEmpty {
                        var taken: [FetchResult] = []
                        swap(&taken, &state.buffer)
                        return taken
                    }
                    if state.cancelled || state.inputTotal == state.delivered {
                        return []
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            self.cancel()
        }
    }

    /// Stops accepting results and releases a waiting consumer.
    func cancel() {
        let waiter = self.state.withLock { state in
            state.cancelled = true
            state.buffer = []
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [])
    }
}
