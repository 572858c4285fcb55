import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// `--adaptive`: each host's rate follows how the host answers (issue 42), on the state machine's
/// fake clock.
struct AdaptiveRateTests {
    private static let step = AdaptiveRate.step

    @Test func slowStartDoublesUntilTheFirstCutThenStepsUpToNinetyPercentOfItAndCreeps() {
        var rate = AdaptiveRate(ceiling: nil, now: 0)
        #expect(rate.rate == 10 && rate.slowStart)
        var changed = rate.answered(now: Self.step - 1)
        #expect(!changed, "at most once a step")
        changed = rate.answered(now: Self.step)
        #expect(changed && rate.rate == 20)
        changed = rate.answered(now: 2 * Self.step)
        #expect(changed && rate.rate == 40)
        changed = rate.throttled(now: 2 * Self.step + 1)
        #expect(changed && rate.rate == 28 && !rate.slowStart)
        // The requests already in flight at 40/s come back throttled too: one event, one cut.
        changed = rate.throttled(now: 3 * Self.step)
        #expect(!changed && rate.rate == 28)
        changed = rate.answered(now: 3 * Self.step + 1)
        #expect(changed && abs(rate.rate - 30.8) < 1e-9)
        changed = rate.answered(now: 4 * Self.step + 1)
        #expect(changed && abs(rate.rate - 33.6) < 1e-9)
        // Quickly up to 90% of where the host throttled (40), then 1% a step.
        changed = rate.answered(now: 5 * Self.step + 1)
        #expect(changed && abs(rate.rate - 36) < 1e-9)
        changed = rate.answered(now: 6 * Self.step + 1)
        #expect(changed && abs(rate.rate - 36.36) < 1e-9)
        changed = rate.throttled(now: 7 * Self.step + 1)
        #expect(changed && abs(rate.rate - 25.452) < 1e-9 && rate.cuts == 2)
    }

    @Test func theConfiguredRateIsACeilingAndOneAStartTheFloor() {
        var capped = AdaptiveRate(ceiling: 15, now: 0)
        #expect(capped.rate == 15)
        let raised = capped.answered(now: Self.step)
        #expect(!raised, "already at its rule")
        var low = AdaptiveRate(ceiling: nil, now: 0)
        for cut in 1...20 {
            _ = low.throttled(now: UInt64(cut) * Self.step)
        }
        #expect(low.rate == AdaptiveRate.minimumRate)
    }

    /// Two hosts without rules behind one list, each limiting as nginx's `limit_req` does (a leaky
    /// bucket: 40 and 200 a second, a burst of 5, the excess answered 429). After a few seconds each
    /// is served near its own limit, few answers are 429s, and `--stats` has the rate each was left at.
    @Test func eachHostSettlesNearItsOwnLimitWithFewThrottledAnswers() {
        var limits = Engine.HostLimits()
        limits.adaptive = true
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 100
            $0.hostLimits = limits
            $0.retry = RetryPolicy(maxRetries: 100, baseDelay: .milliseconds(100), maxDelay: .seconds(2))
        }
        let sink = ResultSink()
        let slow = "http://slow.test/", fast = "http://fast.test/"
        harness.receive((0..<600).map { "\(slow)\($0)" } + (0..<3000).map { "\(fast)\($0)" }, to: sink)
        let limit: [Substring: Double] = ["slow.test": 40, "fast.test": 200]
        var level: [Substring: Double] = [:]
        var starts: [Substring: [Int]] = [:]
        var throttled: [Substring: Int] = [:]
        for millisecond in 0..<12_000 {
            for host in limit.keys {
                level[host] = max(0, (level[host] ?? 0) - limit[host, default: 0] / 1000)
            }
            for transfer in harness.admit().started {
                let host = transfer.hostKey
                starts[host, default: Array(repeating: 0, count: 12)][millisecond / 1000] += 1
                let over = (level[host] ?? 0) + 1 > 6
                if over {
                    throttled[host, default: 0] += 1
                } else {
                    level[host, default: 0] += 1
                }
                harness.respond(transfer, status: over ? 429 : 200)
            }
            harness.advance(by: .milliseconds(1))
        }
        let counts = harness.machine.hostCounts
        for (host, cap) in limit {
            let perSecond = starts[host, default: []]
            #expect(perSecond[5..<10].allSatisfy { Double($0) >= cap / 2 }, "\(host): \(perSecond)")
            let total = perSecond.reduce(0, +)
            #expect(Double(throttled[host, default: 0]) < 0.05 * Double(total), "\(host): \(throttled) of \(total)")
            let rate = counts[String(host)]?.rate ?? 0
            #expect(rate > cap / 3 && rate <= 1.5 * cap, "\(host) left at \(rate)/s")
        }
    }
}
