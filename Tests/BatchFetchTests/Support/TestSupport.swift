import BatchFetch
import Foundation

/// A seeded generator (SplitMix64), so randomised logic is tested reproducibly.
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

struct TimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "timed out after \(self.seconds) s" }
}

/// Runs `body`, failing with ``TimedOut`` instead of hanging the test run.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
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
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() {
            return true
        }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension Engine.Configuration {
    /// A configuration for tests: fast retries so retry tests take milliseconds.
    static func testing(maxInFlight: Int = 16, retries: Int = 3) -> Engine.Configuration {
        var configuration = Engine.Configuration()
        configuration.maxInFlight = maxInFlight
        configuration.retry = RetryPolicy(maxRetries: retries, baseDelay: .milliseconds(5), maxDelay: .milliseconds(50))
        configuration.timeout = .seconds(10)
        return configuration
    }
}

/// Collects a whole batch.
func collect(_ engine: Engine, _ requests: [Request]) async -> [FetchResult] {
    var results: [FetchResult] = []
    for await result in engine.results(for: requests) {
        results.append(result)
    }
    return results
}
