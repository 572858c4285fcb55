import Foundation
import Synchronization

/// Runs one of the package's executables as a user would, with a deadline: a run that outlives it
/// is killed and reported as hung, so a hang fails one test instead of the whole suite.
struct Command {
    struct Output {
        let status: Int32
        let stdout: Data
        let stderr: String
        /// Whether the deadline passed and the process was killed.
        let hung: Bool
        let seconds: Double

        var text: String { String(decoding: self.stdout, as: UTF8.self) }

        /// Standard output's lines, each parsed as a JSON object.
        func records() throws -> [[String: Any]] {
            try self.text.split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.coderReadCorrupt)
                }
                return object
            }
        }
    }

    let url: URL

    /// Finds `name` beside the test bundle (both are products of the same build).
    init(_ name: String) throws {
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

    static func batchfetch() throws -> Command {
        try Command("batchfetch")
    }

    /// Runs with `arguments`, feeding `stdin` (raw bytes, so NULs and invalid UTF-8 get through),
    /// and waits at most `deadline` seconds for the exit.
    func run(_ arguments: [String], stdin: Data? = nil, deadline: Double = 60) throws -> Output {
        let process = Process()
        process.executableURL = self.url
        process.arguments = arguments
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
        return Output(
            status: process.terminationStatus,
            stdout: stdoutBox.data,
            stderr: String(decoding: stderrBox.data, as: UTF8.self),
            hung: hung,
            seconds: Date().timeIntervalSince(started)
        )
    }
}

private final class Box: Sendable {
    private let state = Mutex<(data: Data, done: Bool)>((Data(), false))

    func finish(_ data: Data) {
        self.state.withLock { $0 = (data, true) }
    }

    var isDone: Bool { self.state.withLock { $0.done } }
    var data: Data { self.state.withLock { $0.data } }
}

/// A scratch directory removed when the test is done.
struct ScratchDirectory: ~Copyable {
    let url: URL

    init(_ prefix: String) throws {
        self.url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        self.url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: self.url)
    }
}

/// A seeded generator (SplitMix64), so randomised tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
