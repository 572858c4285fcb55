import Foundation

/// Runs one of the package's executables, as a user would, and captures what it printed.
struct Executable {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    let url: URL

    /// Finds `name` beside the test bundle (both are build products of the same build).
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

    /// Runs with `arguments`, feeding `stdin`, with `environment` added to this process's own,
    /// and waits for the exit.
    func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = self.url
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
        }
        try input.fileHandleForWriting.close()
        // Drain stderr on another thread while reading stdout, so neither full pipe blocks the child.
        let stderrBox = DataBox()
        let reader = Thread {
            stderrBox.data = err.fileHandleForReading.readDataToEndOfFile()
        }
        reader.start()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        while !stderrBox.done {
            usleep(1000)
        }
        let stderrData = stderrBox.data
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self)
        )
    }
}

private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Data()
    private var finished = false

    var data: Data {
        get { self.lock.withLock { self.value } }
        set {
            self.lock.withLock {
                self.value = newValue; self.finished = true
            }
        }
    }

    var done: Bool { self.lock.withLock { self.finished } }
}
