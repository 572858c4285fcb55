import DequeModule
import Synchronization

/// An async gate for a producer feeding the engine: a counting semaphore (how many more requests
/// may be outstanding before the consumer catches up), plus, for input order, an index limit (how
/// far past the oldest result not yet yielded the producer may read) and a pause (while the
/// results waiting in the reorder buffer hold too many bytes). Waiting suspends the task; nothing
/// blocks a thread.
///
/// Threading: any task.
final class Credits: Sendable {
    private struct State {
        var available: Int
        var limit = Int.max
        var paused = false
        var waiters = Deque<(index: Int, continuation: CheckedContinuation<Bool, Never>)>()
        var closed = false
        /// Credits lent beyond the initial ones (``lend(_:)``).
        var lent = 0

        func grants(_ index: Int) -> Bool {
            self.available > 0 && index < self.limit && !self.paused
        }

        /// Takes the credits of the waiters that may go now, oldest first.
        mutating func admitWaiters() -> [CheckedContinuation<Bool, Never>] {
            var woken: [CheckedContinuation<Bool, Never>] = []
            while let first = self.waiters.first, self.grants(first.index) {
                self.available -= 1
                woken.append(first.continuation)
                self.waiters.removeFirst()
            }
            return woken
        }
    }

    private let state: Mutex<State>

    init(_ initial: Int) {
        self.state = Mutex(State(available: initial))
    }

    /// Takes one credit for the request at `index`, waiting until there is one, the index is below
    /// the limit and the gate is not paused.
    /// - Returns: `false` when the credits were closed (the consumer went away).
    func acquire(index: Int = 0) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let granted: Bool? = self.state.withLock { state in
                if state.closed {
                    return false
                }
                if state.waiters.isEmpty, state.grants(index) {
                    state.available -= 1
                    return true
                }
                state.waiters.append((index, continuation))
                return nil
            }
            if let granted {
                continuation.resume(returning: granted)
            }
        }
    }

    /// Returns `count` credits, waking waiting producers.
    func release(_ count: Int = 1) {
        guard count > 0 else {
            return
        }
        self.update { $0.available += count }
    }

    /// Sets the first index that may not be acquired yet and whether acquiring is paused, and
    /// returns `count` credits, in one step.
    func gate(limit: Int, paused: Bool, releasing count: Int = 0) {
        self.update { state in
            state.limit = limit
            state.paused = paused
            state.available += count
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let woken = self.state.withLock { state in
            change(&state)
            return state.admitWaiters()
        }
        for waiter in woken {
            waiter.resume(returning: true)
        }
    }

    /// Makes `count` credits more available than the initial ones, as a total (not added to the last
    /// call's): the engine lends one for each request waiting at its host, which a dead or slow host
    /// would otherwise use up. Taking them back may leave fewer than none available until results
    /// return them.
    func lend(_ count: Int) {
        self.update { state in
            state.available += count - state.lent
            state.lent = count
        }
    }

    /// Refuses all further credits and releases every waiter with `false`.
    func close() {
        let waiters = self.state.withLock { state in
            state.closed = true
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(returning: false)
        }
    }
}
