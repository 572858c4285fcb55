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
    }

    private let state = Mutex(State())

    /// Hands results to the consumer, waking it if it waits.
    func deliver(_ results: [FetchResult]) {
        let waiter: UnsafeContinuation<[FetchResult], Never>? = self.state.withLock { state in
            guard !state.cancelled else {
                return nil
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(contentsOf: results)
            return nil
        }
        waiter?.resume(returning: results)
    }

    /// Waits for results and takes all that are buffered.
    /// - Returns: at least one result, or an empty array when the consuming task was cancelled.
    func take() async -> [FetchResult] {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<[FetchResult], Never>) in
                let ready: [FetchResult]? = self.state.withLock { state in
                    if !state.buffer.isEmpty {
                        var taken: [FetchResult] = []
                        swap(&taken, &state.buffer)
                        return taken
                    }
                    if state.cancelled {
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
