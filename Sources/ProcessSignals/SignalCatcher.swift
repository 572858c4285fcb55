import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a handler on a dispatch queue for each SIGINT, SIGTERM or SIGHUP the process receives,
/// instead of the signal's default action.
///
/// Why not `DispatchSource.makeSignalSource` alone: on Linux, libdispatch reads the signal from a
/// signalfd but leaves the signal unblocked in threads it did not make, so a signal the kernel
/// hands to one of those threads can be taken there and never reach the source (a CI run lost a
/// SIGINT this way). Here a `sigaction` handler, which runs on whichever thread takes the signal,
/// writes its number to a pipe (`write` is async-signal-safe), and a read source on the pipe calls
/// the handler. No signal is lost, whatever the threads' masks.
///
/// One catcher is live at a time in a process; ``cancel()`` stops its calls. The dispositions stay
/// caught after that, and signals then do nothing: a process that is writing its last output should
/// not die half-way through it.
///
/// Thread safety: `init` and ``cancel()`` may be called from any thread; the handler runs on
/// `queue`. `@unchecked Sendable`: its one property, a dispatch source, is safe to cancel from any
/// thread.
public final class SignalCatcher: @unchecked Sendable {
    private let source: (any DispatchSourceRead)?

    /// Catches `signals` and calls `handler` with each one's number on `queue`.
    public init(
        signals: [Int32],
        queue: DispatchQueue = .global(),
        handler: @escaping @Sendable (Int32) -> Void
    ) {
        let descriptors = SignalPipe.shared
        guard descriptors.readEnd >= 0 else {
            self.source = nil
            return
        }
        // Signals that came while no catcher was live were meant to do nothing.
        SignalPipe.drain(descriptors.readEnd) { _ in }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptors.readEnd, queue: queue)
        source.setEventHandler {
            SignalPipe.drain(descriptors.readEnd, into: handler)
        }
        source.resume()
        self.source = source
        for number in signals {
            SignalPipe.catchSignal(number)
        }
    }

    /// Stops calling the handler.
    public func cancel() {
        self.source?.cancel()
    }
}

/// The pipe the signal handler writes to: made once per process, both ends non-blocking and
/// closed on exec.
private struct SignalPipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    static let shared: SignalPipe = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // Without a pipe the signals keep their default action: the run dies as before,
            // rather than ignoring Ctrl-C.
            return SignalPipe(readEnd: -1, writeEnd: -1)
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        signalPipeWriteEnd = ends[1]
        return SignalPipe(readEnd: ends[0], writeEnd: ends[1])
    }()

    /// Reads every signal number waiting in the pipe and passes each to `handler`.
    static func drain(_ readEnd: Int32, into handler: (Int32) -> Void) {
        var numbers = [UInt8](repeating: 0, count: 16)
        while true {
            let count = read(readEnd, &numbers, numbers.count)
            guard count > 0 else { return }
            for number in numbers[0..<count] {
                handler(Int32(number))
            }
        }
    }

    /// Routes `number` to the pipe; keeps its default action when the pipe could not be made.
    static func catchSignal(_ number: Int32) {
        guard Self.shared.writeEnd >= 0 else { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(signalPipeWriteEnd, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(number, &action, nil)
    }
}

/// The pipe's write end, for the signal handler, which can capture nothing. Set before the first
/// handler is installed and never changed after.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
