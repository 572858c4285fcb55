import BatchFetch
import Foundation

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
