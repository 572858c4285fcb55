import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a handler on a dispatch queue for each signal of a set (SIGINT, SIGTERM, SIGHUP) the
/// process receives, instead of the signal's default action.
///
/// Why not `DispatchSource.makeSignalSource`: on Linux, libdispatch reads the signal from a
/// signalfd while the signal stays unblocked in threads it did not make, so one of those threads
/// can take it and it never reaches the source (a CI run lost a SIGINT so). Why not a plain
/// handler alone: a process may start with the signals blocked in every thread (a child spawned
/// from one of libdispatch's workers, which block all signals, inherits that mask), and then no
/// handler ever runs. So a `sigaction` handler writes the number to a pipe (`write` is
/// async-signal-safe), and one thread of ours, which unblocks the signals for itself so that the
/// kernel always has a thread to deliver them to, reads the pipe and hands each number on.
///
/// One catcher is live at a time in a process; ``cancel()`` stops its calls. The dispositions stay
/// caught after that, and signals then do nothing: a process that is writing its last output should
/// not die half-way through it.
///
/// Thread safety: `init` and ``cancel()`` may be called from any thread; the handler runs on
/// `queue`, or without one on the reading thread itself. Not on a global queue by default: those
/// share their few threads with Swift's tasks, and a run whose tasks hold them would not hear its
/// Ctrl-C until it ended by itself.
public final class SignalCatcher: Sendable {
    private let id: Int

    /// Catches `signals` and calls `handler` with each one's number on `queue` (`nil`: on the
    /// thread that reads the signals; the handler must then be quick and must not block).
    public init(
        signals: [Int32],
        queue: DispatchQueue? = nil,
        handler: @escaping @Sendable (Int32) -> Void
    ) {
        let reader = SignalReader.shared
        self.id = reader.register(queue: queue, handler: handler)
        for number in signals {
            reader.catchSignal(number)
        }
    }

    /// Stops calling the handler.
    public func cancel() {
        SignalReader.shared.unregister(self.id)
    }
}

/// The process's one signal pipe and the thread that reads it.
private final class SignalReader: Sendable {
    private struct Current {
        var id = 0
        var queue: DispatchQueue?
        var handler: (@Sendable (Int32) -> Void)?
        /// The signals caught so far: the reading thread keeps them unblocked.
        var caught: [Int32] = []
    }

    static let shared = SignalReader()

    private let readEnd: Int32
    private let current = Mutex(Current())

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // Without a pipe the signals keep their default action: the run dies as before
            // rather than ignoring Ctrl-C.
            self.readEnd = -1
            return
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        // The handler must never block; the reading thread may.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        signalPipeWriteEnd = ends[1]
        self.readEnd = ends[0]
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { _ in
                SignalReader.shared.read()
                return nil
            }, nil)
        if started == 0 {
            pthread_detach(thread)
        }
    }

    func register(queue: DispatchQueue?, handler: @escaping @Sendable (Int32) -> Void) -> Int {
        self.current.withLock { current in
            current.id += 1
            current.queue = queue
            current.handler = handler
            return current.id
        }
    }

    func unregister(_ id: Int) {
        self.current.withLock { current in
            if current.id == id {
                current.queue = nil
                current.handler = nil
            }
        }
    }

    /// Routes `number` to the pipe, and has the reading thread unblock it; keeps its default
    /// action when the pipe could not be made.
    func catchSignal(_ number: Int32) {
        guard self.readEnd >= 0 else { return }
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
        let isNew = self.current.withLock { current in
            guard !current.caught.contains(number) else { return false }
            current.caught.append(number)
            return true
        }
        if isNew {
            // Wakes the reading thread, which then unblocks what is caught (0 is no signal).
            var byte: UInt8 = 0
            _ = write(signalPipeWriteEnd, &byte, 1)
        }
    }

    /// The reading thread: unblocks the caught signals for itself, so the kernel can always deliver
    /// them here, and hands each number read to the current handler.
    private func read() {
        var unblocked: [Int32] = []
        var numbers = [UInt8](repeating: 0, count: 16)
        while true {
            let caught = self.current.withLock { $0.caught }
            if caught.count != unblocked.count {
                var set = sigset_t()
                sigemptyset(&set)
                for number in caught {
                    sigaddset(&set, number)
                }
                pthread_sigmask(SIG_UNBLOCK, &set, nil)
                unblocked = caught
            }
            let count = Glibc.read(self.readEnd, &numbers, numbers.count)
            guard count > 0 else {
                if count < 0 && errno == EINTR {
                    continue
                }
                return
            }
            for number in numbers[0..<count] where number != 0 {
                let (queue, handler) = self.current.withLock { ($0.queue, $0.handler) }
                guard let handler else {
                    continue
                }
                if let queue {
                    queue.async { handler(Int32(number)) }
                } else {
                    handler(Int32(number))
                }
            }
        }
    }
}

/// The pipe's write end, for the signal handler, which can capture nothing. Set before the first
/// handler is installed and never changed after.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1
