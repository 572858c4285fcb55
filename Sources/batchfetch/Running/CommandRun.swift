import ArgumentParser
import Foundation
import Synchronization

/// The exit statuses of every command (README, "Exit status").
extension ExitCode {
    /// Some records, facets or requests failed (the rest are written), or the run stopped on an error.
    static let someFailed = ExitCode(1)
    /// Bad usage: a flag, an unreadable input, an unwritable output, a resume that does not match.
    static let usage = ExitCode(2)
    /// Stopped by `signal` (SIGINT 130, SIGTERM 143, SIGHUP 129: 128 + its number, as a shell
    /// reports a process the signal killed); what was complete is written.
    static func interrupted(by signal: Int32) -> ExitCode {
        ExitCode(128 + signal)
    }
    /// The reader of the output went away (a closed pipe, as with `| head`): what a process
    /// killed by SIGPIPE reports, as any shell tool would.
    static let brokenPipe = ExitCode(141)
}

/// A command's work run as a task that SIGINT, SIGTERM and SIGHUP cancel, with a progress line on
/// standard error meanwhile. A second signal exits at once, with the first one's status: complete
/// output is already written, and the user wants out.
struct CommandRun<Value: Sendable> {
    /// What the work returned or threw.
    let outcome: Result<Value, any Error>
    /// The signal that cancelled it, if one did.
    let signal: Int32?

    /// Whether a signal cancelled it.
    var interrupted: Bool { self.signal != nil }

    init(progress: ProgressReporter? = nil, _ work: sending @escaping () async throws -> Value) async {
        // Signals are caught before the work starts: one that came while the work ran ahead of
        // the catcher would be lost (or, inherited as ignored from a shell, ignored).
        let run = SignalledTask<Value>()
        let signals = InterruptHandler { number in
            let (first, original) = run.received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            if !first {
                Foundation.exit(ExitCode.interrupted(by: original).rawValue)
            }
            run.cancel()
        }
        let task = Task { try await work() }
        run.start(task)
        progress?.start()
        self.outcome = await task.result
        progress?.stop()
        signals.cancel()
        let number = run.received.load(ordering: .relaxed)
        self.signal = number == 0 ? nil : number
    }
}

/// The task a signal cancels, which may come before the task exists. Thread-safe.
private final class SignalledTask<Value: Sendable>: Sendable {
    /// The first signal's number; 0 until one comes.
    let received = Atomic<Int32>(0)
    private let task = Mutex<(task: Task<Value, any Error>?, cancelled: Bool)>((nil, false))

    func start(_ task: Task<Value, any Error>) {
        let cancelled = self.task.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled {
            task.cancel()
        }
    }

    func cancel() {
        let task = self.task.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

extension FileHandleOutput {
    /// The file at `path`, created or truncated (`nil`: standard output).
    /// - Throws: ``ExitCode/usage``, having said why, when it cannot be written.
    static func opening(_ path: String?) throws -> FileHandleOutput {
        guard let path else {
            return .standardOutput
        }
        guard let file = FileHandleOutput(path: path) else {
            FileHandleOutput.standardError.write("batchfetch: cannot write to \(path)\n")
            throw ExitCode.usage
        }
        return file
    }
}
