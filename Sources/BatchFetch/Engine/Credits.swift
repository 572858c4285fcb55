import DequeModule
import Synchronization

/// An async counting semaphore: how many more requests a producer may hand to the engine before
/// the consumer catches up. Waiting suspends the task; nothing blocks a thread.
///
/// Threading: any task.
final class Credits: Sendable {
    private struct State {
        var available: Int
        var waiters = Deque<CheckedContinuation<Bool, Never>>()
        var closed = false
    }

    private let state: Mutex<State>

    init(_ initial: Int) {
        self.state = Mutex(State(available: initial))
    }

    /// Takes one credit, waiting for it if none is left.
    /// - Returns: `false` when the credits were closed (the consumer went away).
    func acquire() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let granted: Bool? = self.state.withLock { state in
                if state.closed {
                    return false
                }
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
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
        let woken: [CheckedContinuation<Bool, Never>] = self.state.withLock { state in
            state.available += count
            var woken: [CheckedContinuation<Bool, Never>] = []
            while state.available > 0, let waiter = state.waiters.popFirst() {
                state.available -= 1
                woken.append(waiter)
            }
            return woken
        }
        for waiter in woken {
            waiter.resume(returning: true)
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
            waiter.resume(returning: false)
        }
    }
}
