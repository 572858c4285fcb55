import Foundation
import TestSupport
import Testing

@testable import BatchFetch

struct RetryPolicyTests {
    private let policy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    private func decide(
        attempt: Int = 1, method: Request.Method = .get, status: Int? = nil, error: FetchError.Kind? = nil,
        retryAfter: Duration? = nil
    ) -> RetryPolicy.Decision {
        var generator = SeededGenerator(seed: 7)
        return self.policy.decide(
            attempt: attempt, method: method, status: status, error: error, retryAfter: retryAfter, using: &generator)
    }

    @Test func transientStatusesAreRetriedAndOthersAreNot() {
        for status in [408, 425, 429, 500, 502, 503, 504] {
            #expect(self.decide(status: status) != .done, "\(status)")
        }
        for status in [200, 301, 400, 401, 403, 404, 501] {
            #expect(self.decide(status: status) == .done, "\(status)")
        }
    }

    @Test func transportFailuresAreRetriedButInputErrorsAreNot() {
        for kind in [FetchError.Kind.connectFailed, .timeout, .transport] {
            #expect(self.decide(error: kind) != .done, "\(kind)")
        }
        for kind in [FetchError.Kind.tooLarge, .unsupportedScheme, .invalidURL, .tlsFailure, .dnsFailure] {
            #expect(self.decide(error: kind) == .done, "\(kind)")
        }
    }

    @Test func retriesStopAfterTheMaximum() {
        #expect(self.decide(attempt: 3, status: 503) != .done)
        #expect(self.decide(attempt: 4, status: 503) == .done)
        #expect(
            RetryPolicy.none.decide(
                attempt: 1, method: .get, status: 503, error: nil, retryAfter: nil, using: &SeededGeneratorBox.shared)
                == .done)
    }

    @Test func aPostIsRetriedOnlyWhenTheServerDidNotProcessIt() {
        for method in [Request.Method.post, .patch] {
            #expect(self.decide(method: method, status: 500) == .done, "\(method)")
            #expect(self.decide(method: method, status: 502) == .done, "\(method)")
            #expect(self.decide(method: method, error: .timeout) == .done, "\(method)")
            #expect(self.decide(method: method, error: .transport) == .done, "\(method)")
            // A 503 without Retry-After may come from a server that failed midway through it.
            #expect(self.decide(method: method, status: 503) == .done, "\(method)")
            #expect(self.decide(method: method, status: 503, retryAfter: .seconds(1)) == .retry(after: .seconds(1)))
            #expect(self.decide(method: method, status: 429) != .done, "\(method)")
            #expect(self.decide(method: method, error: .connectFailed) != .done, "\(method)")
        }
        for method in [Request.Method.get, .head, .put, .delete, .options] {
            #expect(self.decide(method: method, status: 500) != .done, "\(method)")
            #expect(self.decide(method: method, error: .timeout) != .done, "\(method)")
        }
    }

    @Test func retryingAllMethodsRetriesAPostLikeAGet() {
        let policy = RetryPolicy(maxRetries: 3, retriesAllMethods: true)
        var generator = SeededGenerator(seed: 7)
        for (status, error) in [(500, nil), (503, nil), (nil, FetchError.Kind.timeout), (nil, .transport)] {
            let decision = policy.decide(
                attempt: 1, method: .post, status: status, error: error, retryAfter: nil, using: &generator)
            #expect(decision != .done, "\(String(describing: status)) \(String(describing: error))")
        }
        // Still only what is retryable at all.
        #expect(
            policy.decide(attempt: 1, method: .post, status: 400, error: nil, retryAfter: nil, using: &generator)
                == .done)
    }

    @Test func retryAfterReplacesTheBackoffUpToTheMaximum() {
        #expect(self.decide(status: 429, retryAfter: .seconds(2)) == .retry(after: .seconds(2)))
        #expect(self.decide(status: 429, retryAfter: .seconds(61)) == .done)
    }

    @Test func keepingAnOutcomeWorthRetryingSaysWhy() {
        func gaveUp(
            _ policy: RetryPolicy? = nil, attempt: Int = 1, method: Request.Method = .get, status: Int? = nil,
            error: FetchError.Kind? = nil, retryAfter: Duration? = nil
        ) -> RetryPolicy.GiveUp? {
            var generator = SeededGenerator(seed: 7)
            return (policy ?? self.policy).decision(
                attempt: attempt, method: method, status: status, error: error, retryAfter: retryAfter,
                using: &generator
            ).gaveUp
        }
        #expect(gaveUp(attempt: 4, status: 503) == .retriesExhausted(attempts: 4))
        #expect(gaveUp(attempt: 4, error: .timeout) == .retriesExhausted(attempts: 4))
        #expect(
            gaveUp(status: 429, retryAfter: .seconds(61))
                == .retryAfterTooLong(requested: .seconds(61), limit: .seconds(60)))
        #expect(gaveUp(status: 503) == nil, "retried, not kept")
        #expect(gaveUp(method: .post, status: 503) == .notIdempotent(method: .post))
        #expect(gaveUp(method: .patch, error: .transport) == .notIdempotent(method: .patch))
        #expect(gaveUp(method: .post, status: 404) == nil, "not worth retrying for any method")
        #expect(gaveUp(RetryPolicy(maxRetries: 0), method: .post, status: 503) == nil)
        // Outcomes not worth retrying, and retries turned off, need no reason.
        #expect(gaveUp(attempt: 4, status: 404) == nil)
        #expect(gaveUp(attempt: 4, method: .post, status: 500) == .notIdempotent(method: .post), "a write says why")
        #expect(gaveUp(RetryPolicy.none, status: 503) == nil)
    }

    /// As curl's --retry: the base doubled per retry, never sooner, up to a quarter later at
    /// random, at most the cap (issue 51: full jitter sent three retries within half a second).
    @Test func backoffDoublesFromTheBaseWithAQuarterOfJitterUnderTheCap() {
        var generator = SeededGenerator(seed: 42)
        for attempt in 1...6 {
            let delay = Duration.milliseconds(100) * (1 << (attempt - 1))
            var seen: [Duration] = []
            for _ in 0..<200 {
                seen.append(self.policy.backoff(attempt: attempt, using: &generator))
            }
            if delay >= .seconds(1) {
                #expect(seen.allSatisfy { $0 == .seconds(1) }, "the cap, attempt \(attempt)")
                continue
            }
            let top = min(Duration.seconds(1), delay * 5 / 4)
            #expect(seen.allSatisfy { $0 >= delay && $0 <= top }, "attempt \(attempt): \(seen.min()!)…\(seen.max()!)")
            #expect(seen.min()! < delay + (top - delay) / 4 && seen.max()! > top - (top - delay) / 4)
        }
        // The defaults wait 1, 2, 4 s (and a quarter more at most), capped at 60 s.
        let curl = RetryPolicy()
        for (attempt, seconds) in [(1, 1), (2, 2), (3, 4), (7, 60), (40, 60)] {
            let waited = curl.backoff(attempt: attempt, using: &generator)
            #expect(waited >= .seconds(min(seconds, 60)) && waited <= .seconds(min(Double(seconds) * 1.25, 60)))
        }
    }
}

/// A shared generator for calls that need one but whose result does not depend on it.
enum SeededGeneratorBox {
    nonisolated(unsafe) static var shared = SeededGenerator(seed: 1)
}
