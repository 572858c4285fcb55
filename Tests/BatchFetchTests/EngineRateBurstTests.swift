import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// How many starts `--rate` lets out at once, counted in the engine's state machine on its fake
/// clock (issue 42): a pause must not release a second's worth as a herd.
struct EngineRateBurstTests {
    private static let a = "http://a.test/"

    @Test func theDefaultBurstIsAQuarterSecondOfTheRateAndAShardTakesItsShare() {
        #expect(Engine.RateLimit.share(ofTotal: 40) == Engine.RateLimit(requestsPerSecond: 40, burst: 10))
        #expect(Engine.RateLimit.share(ofTotal: 3).burst == 1)
        #expect(Engine.RateLimit.share(ofTotal: 40, shares: 4) == Engine.RateLimit(requestsPerSecond: 10, burst: 2))
        #expect(Engine.RateLimit.share(ofTotal: 40, burst: 8, shares: 4).burst == 2)
        #expect(Engine.RateLimit.share(ofTotal: 40, burst: 3, shares: 4).burst == 1)
        #expect(Engine.RateLimit.share(ofTotal: 40, burst: 40).burst == 40)
    }

    @Test func afterAPauseAtMostTheBurstStartsAtOnceThenStartsAreSpaced() {
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 1000
            $0.rateLimit = .share(ofTotal: 40)
        }
        let sink = ResultSink()
        harness.receive((0..<200).map { "\(Self.a)\($0)" }, to: sink)
        let first = harness.admit().started
        #expect(first.count == 10)
        for transfer in first {
            harness.respond(transfer)
        }
        // A quiet stretch far longer than a second: the bucket holds a quarter second, no more.
        harness.advance(by: .seconds(5))
        #expect(harness.admit().started.count == 10)
        // Then one start every 25 ms: in each 100 ms window of the next second, 4 (± the edge).
        var perWindow: [Int] = Array(repeating: 0, count: 10)
        for millisecond in 0..<1000 {
            harness.advance(by: .milliseconds(1))
            perWindow[millisecond / 100] += harness.admit().started.count
        }
        #expect(perWindow.allSatisfy { (3...5).contains($0) }, "\(perWindow)")
        // Tokens accrue in floating point, so the 40th may come a millisecond late.
        #expect((39...40).contains(perWindow.reduce(0, +)))
    }

    @Test func retriesReleasedByARetryAfterComeAtMostABurstAtATime() {
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 1000
            $0.rateLimit = .share(ofTotal: 40)
        }
        let sink = ResultSink()
        harness.receive((0..<30).map { "\(Self.a)\($0)" }, to: sink)
        let started = harness.admit().started
        #expect(started.count == 10)
        harness.respond(started[0], status: 429, retryAfter: .seconds(1))
        for transfer in started.dropFirst() {
            harness.respond(transfer)
        }
        // The host is paused: its 20 queued requests and the retry wait for the pause to end.
        harness.advance(by: .milliseconds(500))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .milliseconds(500))
        // 21 are due at once; a whole second's bucket (40) would have let all of them start.
        #expect(harness.admit().started.count == 10)
        var starts = 0
        // One every 25 ms (a millisecond late at most, for floating point).
        for _ in 0..<110 {
            harness.advance(by: .milliseconds(1))
            starts += harness.admit().started.count
        }
        #expect(starts == 4)
    }
}
