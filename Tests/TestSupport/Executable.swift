import Foundation
import Synchronization

/// Runs one of the package's executables as a user would, and captures what it printed, with a
/// deadline: a run that outlives it is killed and reported as hung, so a hang fails one test
/// instead of the whole suite.
///
/// Each run blocks its calling thread until the child exits; standard input is written and both
/// outputs are read on threads of their own, so no full pipe blocks the child.
package struct Executable {
    package struct Output: CustomStringConvertible {
        /// The exit status; when a signal killed the process, the signal's number (as Foundation
        /// reports it), which ``signal`` tells apart.
        package let status: Int32
        /// The signal that killed the process (11 for SIGSEGV), or `nil` when it exited. A shell
        /// would show such a death as status 128 + the signal; Foundation gives the bare number,
        /// which reads like an exit status unless this says otherwise.
        package let signal: Int32?
        package let stdout: String
        package let stderr: String
        /// Whether the deadline passed and the process was killed.
        package let hung: Bool
        package let seconds: Double

        /// How the run ended and its standard error (its first ``stderrHead`` and last
        /// ``stderrTail`` bytes when longer), for a failed expectation's message: a rare crash in
        /// CI is then diagnosable from the log alone. Swift's crash report names the signal and
        /// the fault at its head and the crashed thread near its end.
        package var summary: String {
            var text: String
            if let signal = self.signal {
                text = "killed by signal \(signal) (\(Self.name(of: signal)))"
            } else {
                text = "exited with status \(self.status)"
            }
            text += String(format: " after %.2f s", self.seconds)
            if self.hung {
                text += ", hung: killed at the deadline"
            }
            let bytes = self.stderr.utf8
            if bytes.isEmpty {
                return text + "; standard error empty"
            }
            if bytes.count <= Self.stderrHead + Self.stderrTail {
                return text + "; standard error:\n" + self.stderr
            }
            let head = String(decoding: bytes.prefix(Self.stderrHead), as: UTF8.self)
            let tail = String(decoding: bytes.suffix(Self.stderrTail), as: UTF8.self)
            return text
                + "; standard error, first \(Self.stderrHead) and last \(Self.stderrTail) of its \(bytes.count) bytes:\n"
                + head + "\n[…]\n" + tail
        }

        package var description: String { self.summary }

        /// How much of a long standard error ``summary`` quotes: enough for a Swift crash report's
        /// signal and crashed thread, or a sanitizer's summary, short enough for a test log.
        static let stderrHead = 512
        static let stderrTail = 2048

        private static func name(of signal: Int32) -> String {
            guard let name = strsignal(signal) else {
                return "unknown signal"
            }
            return String(cString: name)
        }

        /// Standard output's lines, each parsed as a JSON object.
        package func records() throws -> [[String: Any]] {
            try self.stdout.split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.coderReadCorrupt)
                }
                return object
            }
        }
    }

    package let url: URL

    /// Finds `name` beside the test bundle (both are build products of the same build).
    package init(_ name: String) throws {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                self.url = candidate
                return
            }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
    }

    /// The program at `path`, such as `/bin/sh` to run a command with a shell's redirections.
    package init(path: String) {
        self.url = URL(fileURLWithPath: path)
    }

    /// The `batchfetch` command.
    package static func batchfetch() throws -> Executable {
        try Executable("batchfetch")
    }

    /// Runs with `arguments`, feeding `stdin` as UTF-8, with `environment` added to this process's
    /// own, and waits at most `deadline` seconds for the exit.
    package func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], deadline: Double = 60
    ) throws -> Output {
        try self.run(arguments, input: stdin.map { Data($0.utf8) }, environment: environment, deadline: deadline)
    }

    /// ``run(_:stdin:environment:deadline:)`` waiting on a thread of its own, for async tests: a
    /// wait on one of the cooperative pool's few threads stalls every other test's tasks meanwhile
    /// (EngineTests' straggler test failed so).
    package func runOffPool(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], deadline: Double = 60
    ) async throws -> Output {
        let executable = self
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try executable.run(arguments, stdin: stdin, environment: environment, deadline: deadline)
                    })
            }.start()
        }
    }

    /// Runs with `arguments`, feeding `stdin` as raw bytes (so NULs and invalid UTF-8 get through).
    package func run(
        _ arguments: [String], stdin: Data, environment: [String: String] = [:], deadline: Double = 60
    ) throws -> Output {
        try self.run(arguments, input: stdin, environment: environment, deadline: deadline)
    }

    private func run(
        _ arguments: [String], input stdin: Data?, environment: [String: String], deadline: Double
    ) throws -> Output {
        let process = Process()
        process.executableURL = self.url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let started = Date()
        try process.run()
        let stdoutBox = Box()
        let stderrBox = Box()
        let readers = [
            Thread { stdoutBox.finish(out.fileHandleForReading.readDataToEndOfFile()) },
            Thread { stderrBox.finish(err.fileHandleForReading.readDataToEndOfFile()) },
        ]
        readers.forEach { $0.start() }
        let writer = Thread {
            if let stdin {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
            }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        var hung = false
        while process.isRunning {
            if Date().timeIntervalSince(started) > deadline {
                hung = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(2000)
        }
        process.waitUntilExit()
        while !(stdoutBox.isDone && stderrBox.isDone) {
            usleep(1000)
        }
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return Output(
            status: process.terminationStatus,
            signal: signal,
            stdout: String(decoding: stdoutBox.data, as: UTF8.self),
            stderr: String(decoding: stderrBox.data, as: UTF8.self),
            hung: hung,
            seconds: Date().timeIntervalSince(started)
        )
    }
}

/// One output's bytes, handed from its reader thread to the waiting one.
private final class Box: Sendable {
    private let state = Mutex<(data: Data, done: Bool)>((Data(), false))

    func finish(_ data: Data) {
        self.state.withLock { $0 = (data, true) }
    }

    var isDone: Bool { self.state.withLock { $0.done } }
    var data: Data { self.state.withLock { $0.data } }
}
