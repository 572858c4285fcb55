import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Catches SIGINT and SIGTERM without killing the process, so the server can shut down cleanly.
///
/// ``install()`` disables the signals' default actions and routes them to Dispatch signal sources;
/// install it before announcing the server, so a signal sent right after the `listening` line is
/// not lost. `@unchecked Sendable`: every mutable property is touched only on `queue` (serial).
final class SignalWaiter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "cocktaildb-replica.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?

    private init() {}

    /// Starts catching SIGINT and SIGTERM.
    static func install() -> SignalWaiter {
        let waiter = SignalWaiter()
        waiter.queue.sync {
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: waiter.queue)
                source.setEventHandler { waiter.deliver(number) }
                source.resume()
                waiter.sources.append(source)
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
        for source in self.sources {
            source.cancel()
        }
        self.continuation?.resume(returning: number)
        self.continuation = nil
    }
}
