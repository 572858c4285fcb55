import Dispatch
import ProcessSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Catches SIGINT and SIGTERM without killing the process, so the server can shut down cleanly.
///
/// ``install()`` replaces the signals' default actions with a ``SignalCatcher``; install it before
/// announcing the server, so a signal sent right after the `listening` line is not lost.
/// `@unchecked Sendable`: every mutable property is touched only on `queue` (serial).
final class SignalWaiter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "cocktaildb-replica.signals")
    private var catcher: SignalCatcher?
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?

    private init() {}

    /// Starts catching SIGINT and SIGTERM.
    static func install() -> SignalWaiter {
        let waiter = SignalWaiter()
        waiter.queue.sync {
            waiter.catcher = SignalCatcher(signals: [SIGINT, SIGTERM], queue: waiter.queue) { number in
                waiter.deliver(number)
            }
        }
        return waiter
    }

    /// Suspends until SIGINT or SIGTERM has arrived; returns the signal number.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            self.queue.async {
                if let received = self.received {
                    continuation.resume(returning: received)
                } else {
                    self.continuation = continuation
                }
            }
        }
    }

    private func deliver(_ number: Int32) {
        guard self.received == nil else { return }
        self.received = number
        self.catcher?.cancel()
        self.continuation?.resume(returning: number)
        self.continuation = nil
    }
}
