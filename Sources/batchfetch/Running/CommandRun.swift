import ArgumentParser
import Foundation
import Synchronization

/// The exit statuses of every command (README, "Exit status").
extension ExitCode {
    /// Some records, facets or requests failed (the rest are written), or the run stopped on an error.
    static let someFailed = ExitCode(1)
    /// Bad usage: a flag, an unreadable input, an unwritable output, a resume that does not match.
    static let usage = ExitCode(2)
    /// Stopped by Ctrl-C (SIGINT) or SIGTERM; what was complete is written.
    static let interrupted = ExitCode(130)
    /// The reader of the output went away (a closed pipe, as with `| head`): what a process
    /// killed by SIGPIPE reports, as any shell tool would.
    static let brokenPipe = ExitCode(141)
}

/// A command's work run as a task that SIGINT and SIGTERM cancel, with a progress line on
/// standard error meanwhile. A second signal exits at once with 130: complete output is already
/// written, and the user wants out.
struct CommandRun<Value: Sendable> {
    /// What the work returned or threw.
    let outcome: Result<Value, any Error>
    /// Whether a signal cancelled it.
    let interrupted: Bool

    init(progress: ProgressReporter? = nil, _ work: sending @escaping () async throws -> Value) async {
        let task = Task { try await work() }
        let interrupted = Atomic<Bool>(false)
        let signals = InterruptHandler {
            if interrupted.exchange(true, ordering: .relaxed) {
                Foundation.exit(ExitCode.interrupted.rawValue)
            }
            task.cancel()
        }
        progress?.start()
        self.outcome = await task.result
        progress?.stop()
        signals.cancel()
        self.interrupted = interrupted.load(ordering: .relaxed)
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
