import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How a run ended, as its command found it: the one place where a run's facts become its exit
/// status and its last word on standard error.
///
/// The first fact that applies decides, and only its message is printed: the records could not be
/// written (141 when their reader closed the pipe, else 1), the run was interrupted (128 + the
/// signal: 130, 143, 129), it failed as a whole (1), something the user must fix (2), some
/// requests or facets failed (1).
struct RunEnding {
    /// The `errno` of the failed write of records.
    var unwritten: Int32? = nil
    /// Set when a signal stopped the run: what was kept, or "" when nothing needs saying.
    var interrupted: String? = nil
    /// The signal that stopped it, which gives the exit status (``ExitCode/interrupted(by:)``).
    var signal: Int32? = nil
    /// Why the run as a whole failed.
    var failure: String? = nil
    /// What the user must fix: an unreadable input, an output that cannot be written, a resume into
    /// another crawl's file ("" when it was said already).
    var usage: String? = nil
    /// Some requests, facets or outputs failed; the rest is written.
    var someFailed = false

    /// Says the deciding fact's message and throws its exit status; returns when all went well.
    func finish() throws {
        if let unwritten = self.unwritten {
            if unwritten == EPIPE {
                throw ExitCode.brokenPipe
            }
            Self.say("cannot write records: \(String(cString: strerror(unwritten)))")
            throw ExitCode.someFailed
        }
        if let interrupted = self.interrupted {
            Self.say(interrupted)
            throw ExitCode.interrupted(by: self.signal ?? SIGINT)
        }
        if let failure = self.failure {
            Self.say(failure)
            throw ExitCode.someFailed
        }
        if let usage = self.usage {
            Self.say(usage)
            throw ExitCode.usage
        }
        if self.someFailed {
            throw ExitCode.someFailed
        }
    }

    private static func say(_ message: String) {
        if !message.isEmpty {
            FileHandleOutput.standardError.write("batchfetch: \(message)\n")
        }
    }
}
