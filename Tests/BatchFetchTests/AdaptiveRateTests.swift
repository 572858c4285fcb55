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

    /// A host that paused the run (`Retry-After`) at one cut and throttles again let through, in
    /// between, what its bucket refilled: the cut lands at 95% of that, not at 70% of an overshoot.
    @Test func afterAPauseACutLandsUnderTheRateTheHostLetThrough() {
        let second: UInt64 = 1_000_000_000
        var rate = AdaptiveRate(ceiling: nil, now: 0)
        for step in 1...3 {
            _ = rate.answered(now: UInt64(step) * Self.step)
        }
        #expect(rate.rate == 80)
        // 40 good answers in the first second (a burst of 20 and 20 refilled), then a 429 with
        // Retry-After. A window ramping up from slow start says nothing sure: a cut to half, as
        // each further probe would cost a pause.
        for _ in 0..<40 {
            rate.succeeded()
        }
        let first = rate.throttled(now: second, paused: true)
        #expect(first)
        #expect(abs(rate.rate - 40) < 1e-9)
        // Over the next 1.5 s (the pause, then at 40/s until the bucket ran dry) 30 got through.
        for _ in 0..<30 {
            rate.succeeded()
        }
        let again = rate.throttled(now: second + 3 * second / 2)
        #expect(again)
        #expect(abs(rate.rate - 19) < 1e-9, "95% of 20/s, not 70% of 40/s")
        // That cut paused nothing: the next one is the usual cut, whatever got through.
        for _ in 0..<30 {
            rate.succeeded()
        }
        let third = rate.throttled(now: 4 * second)
        #expect(third)
        #expect(abs(rate.rate - 13.3) < 1e-9)
        #expect(rate.cuts == 3)
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
    ///
    /// With curl's backoff (1 s, doubling): a 429 without `Retry-After` does not pause the host as
    /// well as cut its rate, which held W8's hosts idle for seconds at each probe.
    @Test(arguments: [Duration.milliseconds(100), .seconds(1)])
    func eachHostSettlesNearItsOwnLimitWithFewThrottledAnswers(backoff: Duration) {
        var limits = Engine.HostLimits()
        limits.adaptive = true
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 100
            $0.hostLimits = limits
            $0.retry = RetryPolicy(maxRetries: 100, baseDelay: backoff, maxDelay: .seconds(60))
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
            #expect(Double(perSecond[2..<12].reduce(0, +)) >= 0.7 * 10 * cap, "\(host): \(perSecond)")
            let total = perSecond.reduce(0, +)
            #expect(Double(throttled[host, default: 0]) < 0.05 * Double(total), "\(host): \(throttled) of \(total)")
            let rate = counts[String(host)]?.rate ?? 0
            #expect(rate > cap / 3 && rate <= 1.5 * cap, "\(host) left at \(rate)/s")
        }
    }
}

/// `--adaptive` bounded (issue 54): no server answer, clock or rule reaches an arithmetic trap, and
/// a host slower than the slots can keep busy does not drive its rate up without end.
struct AdaptiveRateBoundsTests {
    private static let hosts = ["http://a.test/", "http://b.test/", "http://c.test/"]

    /// A million steps of random answers (ok, 429, 503 with and without `Retry-After`, timeouts,
    /// refused connections), random clock moves from none to days, with and without a rule: every
    /// host's rate stays within [1, 1,000,000] a second.
    @Test func randomAnswersAndClocksNeverTrapAndKeepEveryRateInBounds() {
        var random = SeededGenerator(seed: 54)
        for (round, rules) in [nil, "*=1e300", "a.test=0.000001,*=3"].enumerated() {
            var limits = (try? rules.map { try Engine.HostLimits(parsingRates: $0) }) ?? Engine.HostLimits()
            limits.adaptive = true
            var harness = EngineStateMachineHarness {
                $0.maxInFlight = 16
                $0.hostLimits = limits
                $0.retry = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(10), maxDelay: .seconds(1))
            }
            let sink = ResultSink()
            var running: [Transfer] = []
            var submitted = 0
            var delivered = 0
            let steps = round == 0 ? 600_000 : 200_000
            for step in 0..<steps {
                if submitted - delivered < 48 {
                    harness.receive(
                        (0..<16).map { Self.hosts[random.next(Self.hosts.count)] + "\(submitted + $0)" }, to: sink)
                    submitted += 16
                }
                running += harness.admit().started
                if !running.isEmpty && random.next(4) != 0 {
                    let transfer = running.remove(at: random.next(running.count))
                    Self.answer(transfer, &harness, &random)
                }
                let jump: UInt64
                switch random.next(100) {
                case 0..<40: jump = 0
                case 40..<90: jump = UInt64(random.next(2_000_000))
                case 90..<99: jump = UInt64(random.next(2_000_000_000))
                default: jump = UInt64(random.next(1 << 30)) * 200_000
                }
                harness.advance(by: .nanoseconds(Int64(jump)))
                if step % 1_000 == 0 {
                    harness.deliver()
                    delivered += harness.record.results.count
                    harness.record.deliveries.removeAll()
                }
                if step % 5_000 == 0 {
                    for (host, counts) in harness.machine.hostCounts {
                        let rate = counts.rate ?? 0
                        #expect(
                            rate >= 1 && rate <= 1_000_000,
                            "\(host) at \(rate)/s, step \(step), rules \(rules ?? "none")")
                    }
                }
            }
        }
    }

    private static func answer(
        _ transfer: Transfer, _ harness: inout EngineStateMachineHarness, _ random: inout SeededGenerator
    ) {
        switch random.next(8) {
        case 0: harness.respond(transfer, status: 429)
        case 1: harness.respond(transfer, status: 503, retryAfter: .milliseconds(Int64(random.next(120_000))))
        case 2: harness.respond(transfer, status: 503)
        case 3:
            harness.machine.transferFinished(
                transfer, .failure(FetchError(kind: .timeout, message: "timed out")), retryAfter: nil,
                now: harness.now)
        case 4:
            harness.machine.transferFinished(
                transfer, .failure(FetchError(kind: .connectFailed, message: "refused")), retryAfter: nil,
                now: harness.now)
        default: harness.respond(transfer)
        }
    }

    /// 400 URLs of one host that answers each in 5 s, 64 slots, no rule: the slots, not the rate,
    /// hold the work back, so the rate stops rising near what the slots start (64 per 5 s) and
    /// every request ends ok.
    @Test func aHostSlowerThanTheSlotsDoesNotRaiseItsRateWithoutEnd() {
        var limits = Engine.HostLimits()
        limits.adaptive = true
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 64
            $0.hostLimits = limits
        }
        let sink = ResultSink()
        harness.receive((0..<400).map { "http://slow.test/\($0)" }, to: sink)
        var inFlight: [(due: UInt64, transfer: Transfer)] = []
        for _ in 0..<200_000 {
            for transfer in harness.admit().started {
                inFlight.append((harness.now + 5_000_000_000, transfer))
            }
            for entry in inFlight where entry.due <= harness.now {
                harness.respond(entry.transfer)
            }
            inFlight.removeAll { $0.due <= harness.now }
            if inFlight.isEmpty && harness.machine.queued == 0 {
                break
            }
            harness.advance(by: .milliseconds(1))
        }
        harness.deliver()
        let results = harness.record.results
        #expect(results.count == 400 && results.allSatisfy { $0.status == 200 })
        let rate = harness.machine.hostCounts["slow.test"]?.rate ?? 0
        #expect(rate <= 640, "left at \(rate)/s")
    }
}
