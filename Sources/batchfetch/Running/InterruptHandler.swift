import Dispatch
import ProcessSignals

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `handler` with the signal's number on SIGINT, SIGTERM and SIGHUP, on a dispatch queue,
/// instead of the default of dying with unflushed output.
final class InterruptHandler {
    /// The signals a run stops on: Ctrl-C, a scheduler's or `kill`'s stop, and a closed terminal.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private let catcher: SignalCatcher

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        self.catcher = SignalCatcher(signals: Self.signals, handler: handler)
    }

    /// The signal's name, for a summary line.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    func cancel() {
        self.catcher.cancel()
    }
}
