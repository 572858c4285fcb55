import BatchFetch
import DequeModule
import Foundation
import Synchronization

/// Reads input on a thread of its own and hands it to async code, so a blocking `read` on a pipe
/// never holds a cooperative thread, and records can flow while the pipe is still open.
///
/// The buffer is bounded: when it is full the reading thread waits, so a fast producer upstream
/// cannot grow memory.
final class ThreadedInput<Element: Sendable>: AsyncSequence, Sendable {
    typealias Failure = Never

    private struct State {
        var buffer: [Element] = []
        var finished = false
        var cancelled = false
        var waiter: CheckedContinuation<[Element], Never>?
    }

    private let state = Mutex(State())
    private let space: DispatchSemaphore
    private let capacity: Int

    /// Starts a thread that calls `produce` with a `send` function until it returns.
    init(capacity: Int = 1024, produce: @escaping @Sendable (_ send: (Element) -> Bool) -> Void) {
        self.capacity = capacity
        self.space = DispatchSemaphore(value: capacity)
        let thread = Thread { [self] in
            nameCurrentThread("batchfetch-in")
            produce { element in self.send(element) }
            self.finish()
        }
        thread.name = "batchfetch-in"
        thread.start()
    }

    /// Gives back the buffer's space that elements never taken still hold: libdispatch traps
    /// when a semaphore is freed with a lower count than it was made with, which a run that
    /// stops before reading its input (a usage error found after the thread started) did.
    deinit {
        let held = self.state.withLock { $0.buffer.count }
        for _ in 0..<held {
            self.space.signal()
        }
    }

    /// Called on the reading thread; blocks while the buffer is full.
    /// - Returns: `false` when the consumer has gone away and reading should stop.
    private func send(_ element: Element) -> Bool {
        self.space.wait()
        let (waiter, cancelled) = self.state.withLock { state -> (CheckedContinuation<[Element], Never>?, Bool) in
            if state.cancelled {
                // Not buffered: its space goes back at once.
                self.space.signal()
                return (nil, true)
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            state.buffer.append(element)
            return (nil, false)
        }
        if let waiter {
            waiter.resume(returning: [element])
        }
        return !cancelled
    }

    private func finish() {
        let waiter = self.state.withLock { state in
            state.finished = true
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: [])
    }

    /// Stops reading (the thread ends at its next line).
    func cancel() {
        self.state.withLock { $0.cancelled = true }
        self.space.signal()
    }

    /// Waits for input and takes all that is buffered: one hand-over (a lock, a continuation, the
    /// buffer's space given back) for many elements, not one each.
    /// - Returns: at least one element, or none once the input has ended or was cancelled.
    fileprivate func take() async -> [Element] {
        let taken = await withCheckedContinuation { (continuation: CheckedContinuation<[Element], Never>) in
            let ready: [Element]? = self.state.withLock { state in
                if !state.buffer.isEmpty {
                    var taken: [Element] = []
                    swap(&taken, &state.buffer)
                    return taken
                }
                if state.finished || state.cancelled {
                    return []
                }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            }
        }
        // The buffer's space back: each element took a slot when it was sent.
        for _ in 0..<taken.count {
            self.space.signal()
        }
        return taken
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(input: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let input: ThreadedInput
        private var taken: [Element] = []
        private var position = 0

        init(input: ThreadedInput) {
            self.input = input
        }

        mutating func next() async -> Element? {
            if self.position == self.taken.count {
                self.taken = await self.input.take()
                self.position = 0
                guard !self.taken.isEmpty else {
                    return nil
                }
            }
            defer { self.position += 1 }
            return self.taken[self.position]
        }
    }
}
