import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// Per-host rates and in-flight caps in the engine's state machine, on its fake clock (issue 42):
/// starts counted per host, and a host without budget never holding up another's work.
struct EngineHostBudgetTests {
    private static let a = "http://a.test/"
    private static let b = "http://b.test:8080/"

    private static func limits(_ rates: String) throws -> Engine.HostLimits {
        try Engine.HostLimits(parsingRates: rates)
    }

    @Test func rulesNameHostsWithOrWithoutPortAndStarIsTheDefault() throws {
        let limits = try Engine.HostLimits(parsingRates: "api.a.com=10/s, B.test:8080=4,*=2/s")
        #expect(limits.rate(forHostKey: "api.a.com") == 10)
        #expect(limits.rate(forHostKey: "API.A.com:443") == 10)
        #expect(limits.rate(forHostKey: "user@api.a.com") == 10)
        #expect(limits.rate(forHostKey: "b.test:8080") == 4)
        #expect(limits.rate(forHostKey: "b.test:9090") == 2)
        #expect(limits.rate(forHostKey: "other.org") == 2)
        let shared = try Engine.HostLimits(parsingRates: "a.test=40,*=8", shares: 4)
        #expect(shared.rate(forHostKey: "a.test") == 10 && shared.defaultRate == 2)
        for bad in ["a.test", "a.test=0", "=3", "a.test=fast", "a.test=3/m", "a.test=3,"] {
            #expect(throws: FetchError.self, "\(bad)") { try Engine.HostLimits(parsingRates: bad) }
        }
    }

    /// A list sorted by host: a.test's work waits for its tokens in its own queue while b.test's
    /// behind it starts.
    @Test func aHostWithoutATokenDoesNotHoldUpOtherHosts() throws {
        let limits = try Self.limits("a.test=1/s")
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 10
            $0.hostLimits = limits
        }
        let sink = ResultSink()
        harness.receive((0..<5).map { "\(Self.a)\($0)" } + (0..<5).map { "\(Self.b)\($0)" }, to: sink)
        #expect(harness.admitURLs() == ["\(Self.a)0"] + (0..<5).map { "\(Self.b)\($0)" })
        #expect(harness.machine.queued == 4)
        // The next token is due in 1/0.98 s (a host's bucket aims 2% under its rule); the loop
        // polls for a second at most.
        #expect(harness.passEnded() == .poll(milliseconds: 1000))
        harness.advance(by: .milliseconds(1020))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .milliseconds(1))
        #expect(harness.admitURLs() == ["\(Self.a)1"])
        #expect(harness.passEnded() == .poll(milliseconds: 1000))
    }

    @Test func aHostAtItsInFlightCapWaitsForOneOfItsOwnToEndInOrder() throws {
        var limits = Engine.HostLimits()
        limits.maxInFlight = 2
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 10
            $0.hostLimits = limits
        }
        let sink = ResultSink()
        harness.receive((0..<5).map { "\(Self.a)\($0)" } + (0..<3).map { "\(Self.b)\($0)" }, to: sink)
        let started = harness.admit().started
        #expect(started.map(\.request.url) == ["\(Self.a)0", "\(Self.a)1", "\(Self.b)0", "\(Self.b)1"])
        harness.respond(started[1])
        #expect(harness.passEnded() == .admitAgain)
        #expect(harness.admitURLs() == ["\(Self.a)2"])
        harness.respond(started[3])
        harness.respond(started[0])
        #expect(harness.admitURLs() == ["\(Self.b)2", "\(Self.a)3"])
        #expect(harness.machine.running.count == 4)
    }

    /// Starts per host over one second of the fake clock, each answered at once: one at once (a
    /// host's bucket starts with one token), then the rule less the burst and 2%: never more
    /// than the rule in a second, retries included.
    @Test func eachHostStartsAtItsOwnRateRetriesIncluded() throws {
        let limits = try Self.limits("a.test=10/s,*=40/s")
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 100
            $0.hostLimits = limits
            $0.retry = RetryPolicy(maxRetries: 100, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        }
        let sink = ResultSink()
        harness.receive((0..<100).map { "\(Self.a)\($0)" } + (0..<100).map { "\(Self.b)\($0)" }, to: sink)
        var starts: [String: Int] = [:]
        for millisecond in 0..<1000 {
            for transfer in harness.admit().started {
                starts[String(transfer.hostKey), default: 0] += 1
                // Every other one of a.test's fails and is retried: its retries spend its tokens.
                harness.respond(transfer, status: transfer.hostKey == "a.test" && millisecond % 2 == 0 ? 500 : 200)
            }
            harness.advance(by: .milliseconds(1))
        }
        #expect((9...10).contains(starts["a.test"] ?? 0), "\(starts)")
        #expect((38...40).contains(starts["b.test:8080"] ?? 0), "\(starts)")
        let counts = harness.machine.hostCounts
        #expect(counts["a.test"]?.requests == starts["a.test"])
        #expect(counts["a.test"]?.peakPerSecond == starts["a.test"])
        #expect((counts["a.test"]?.statuses[500] ?? 0) > 0 && counts["a.test"]?.pauses == 0)
        #expect(counts["b.test:8080"]?.statuses == [200: starts["b.test:8080"] ?? 0])
    }

    @Test func a429WithoutRetryAfterPausesItsHostForTheBackoffWhileOthersGoOn() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 2 }
        let sink = ResultSink()
        // a.test alone takes both slots; b.test's request comes after they started.
        harness.receive(["\(Self.a)0", "\(Self.a)1", "\(Self.a)2"], to: sink)
        let started = harness.admit().started
        harness.receive(["\(Self.b)0"], to: sink)
        harness.respond(started[0], status: 429)
        // a.test/1 is in flight; a.test/2 must wait for the backoff, b.test's goes ahead.
        #expect(harness.admitURLs() == ["\(Self.b)0"])
        var generator = SeededGenerator(seed: EngineStateMachineHarness.seed)
        let delay = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(10))
            .backoff(attempt: 1, using: &generator)
        harness.respond(started[1])
        harness.respond(harness.machine.running[0])
        harness.advance(by: delay - .nanoseconds(1))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .nanoseconds(1))
        #expect(harness.admitURLs() == ["\(Self.a)0", "\(Self.a)2"])
    }

    @Test func queuedWorkOfAHostIsCancelledAndShutDownLikeTheRest() throws {
        let limits = try Self.limits("a.test=1/s")
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 10
            $0.hostLimits = limits
        }
        let kept = ResultSink()
        let dropped = ResultSink()
        harness.receive((0..<3).map { "\(Self.a)\($0)" }, to: dropped)
        harness.receive((3..<6).map { "\(Self.a)\($0)" }, to: kept)
        #expect(harness.admitURLs() == ["\(Self.a)0"])
        harness.receive([], to: kept, cancelling: [dropped])
        #expect(harness.record.stopped.count == 1)
        harness.advance(by: .milliseconds(1021))
        // The cancelled ones are skipped when their turn comes.
        #expect(harness.admitURLs() == ["\(Self.a)3"])
        let record = harness.record
        harness.machine.shutdown(now: harness.now, stop: { record.stopped.append($0) }) {
            record.deliveries.append(($0, $1))
        }
        #expect(record.results.map(\.index).sorted() == [3, 4, 5])
        #expect(record.results.allSatisfy { $0.error?.kind == .cancelled })
    }
}
