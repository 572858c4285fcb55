import Foundation

/// What ``withTimeout(_:_:)`` throws when its body runs too long.
package struct TimedOut: Error, CustomStringConvertible {
    package let seconds: Double
    package var description: String { "timed out after \(self.seconds) s" }
}

/// Runs `body`, failing with ``TimedOut`` instead of hanging the test run.
package func withTimeout<T: Sendable>(
    _ seconds: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            throw TimedOut(seconds: seconds)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            throw TimedOut(seconds: seconds)
        }
        return first
    }
}

/// Polls `condition` until it holds or `seconds` pass.
package func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() {
            return true
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension FileHandle {
    /// Reads until the first line break has come, the writer closes, or `seconds` pass (poll(2)
    /// with a deadline, so a regression fails a test instead of hanging it). Returns what was read:
    /// it holds no line break when none came in time.
    package func readThroughFirstLine(within seconds: Double) -> Data {
        var bytes = Data()
        let deadline = Date().addingTimeInterval(seconds)
        while !bytes.contains(0x0A) && Date() < deadline {
            var poller = pollfd(fd: self.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else {
                continue
            }
            let chunk = self.availableData
            if chunk.isEmpty {
                break
            }
            bytes.append(chunk)
        }
        return bytes
    }
}

extension Process {
    /// Ends a child a test started, if it still runs, and reaps it: for a `defer` after `run()`.
    package func endAndWait() {
        if self.isRunning {
            self.terminate()
        }
        self.waitUntilExit()
    }
}
