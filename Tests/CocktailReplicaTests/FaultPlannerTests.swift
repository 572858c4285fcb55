import Testing

@testable import CocktailReplica

/// Fault decisions are pure functions of seed, target and attempt.
struct FaultPlannerTests {
    private let target = Array("/api/json/v1/1/lookup.php?i=11007".utf8)

    @Test func theSameInputsAlwaysGiveTheSamePlan() {
        let faults = ReplicaFaults(failRate: 0.3, resetRate: 0.2, latency: ReplicaLatency(milliseconds: 50, jitter: 10))
        let planner = FaultPlanner(seed: 1, faults: faults)
        let other = FaultPlanner(seed: 1, faults: faults)
        for attempt in 0..<50 {
            #expect(
                planner.plan(target: self.target, attempt: attempt, throttled: false)
                    == other.plan(target: self.target, attempt: attempt, throttled: false)
            )
        }
    }

    @Test func ratesAreHonouredOverManyTargets() {
        let faults = ReplicaFaults(failRate: 0.25, failStatuses: [502], resetRate: 0.25)
        let planner = FaultPlanner(seed: 9, faults: faults)
        var counts: [FaultKind?: Int] = [:]
        for index in 0..<4000 {
            let plan = planner.plan(target: Array("/x?i=\(index)".utf8), attempt: 0, throttled: false)
            counts[plan.fault, default: 0] += 1
            if plan.fault == .fail {
                #expect(plan.status == 502)
            }
        }
        #expect((900...1100).contains(counts[.fail] ?? 0))
        #expect((900...1100).contains(counts[.reset] ?? 0))
        #expect((1800...2200).contains(counts[nil] ?? 0))
    }

    @Test func failFirstComesBeforeThrottleAndDice() {
        let planner = FaultPlanner(seed: 1, faults: ReplicaFaults(failRate: 1, failStatuses: [500], failFirst: 2))
        #expect(planner.plan(target: self.target, attempt: 0, throttled: true).fault == .failFirst)
        #expect(planner.plan(target: self.target, attempt: 1, throttled: false).status == 503)
        #expect(planner.plan(target: self.target, attempt: 2, throttled: true).fault == .throttle)
        #expect(planner.plan(target: self.target, attempt: 2, throttled: false).fault == .fail)
    }

    @Test func latencyJitterStaysWithinItsBounds() {
        let planner = FaultPlanner(seed: 5, faults: ReplicaFaults(latency: ReplicaLatency(milliseconds: 20, jitter: 5)))
        let delays = (0..<200).map {
            planner.plan(target: self.target, attempt: $0, throttled: false).delayMilliseconds
        }
        #expect(delays.allSatisfy { (15...25).contains($0) })
        #expect(Set(delays).count > 5)
        #expect(FaultPlanner(seed: 5, faults: ReplicaFaults()).isTrivial)
    }
}

/// The throttle admits `limit` requests per one-second window.
struct ThrottleWindowTests {
    @Test func admitsTheLimitPerSecondAndThenRefuses() {
        var window = ThrottleWindow(limit: 2)
        let second: UInt64 = 1_000_000_000
        let admitted = [0, 10, 20].map { window.admit(nowNanoseconds: 5 * second + $0) }
        #expect(admitted == [true, true, false])
        #expect(window.secondsUntilNextWindow(nowNanoseconds: 5 * second + 20) == 1)
        let nextWindow = window.admit(nowNanoseconds: 6 * second + 1)
        #expect(nextWindow)
    }
}

/// HTTP dates are IMF-fixdate in GMT.
struct HTTPDateTests {
    @Test func formatsTheRFCExampleAndLeapDays() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: 1_709_208_000) == "Thu, 29 Feb 2024 12:00:00 GMT")
    }
}

/// `--latency` values parse as MS, MS±JITTER or MS+-JITTER.
struct ReplicaLatencyTests {
    @Test func parsesTheThreeFormsAndRejectsOthers() {
        #expect(ReplicaLatency(parsing: "20") == ReplicaLatency(milliseconds: 20))
        #expect(ReplicaLatency(parsing: "20±5") == ReplicaLatency(milliseconds: 20, jitter: 5))
        #expect(ReplicaLatency(parsing: " 20+-5 ") == ReplicaLatency(milliseconds: 20, jitter: 5))
        #expect(ReplicaLatency(parsing: "abc") == nil)
        #expect(ReplicaLatency(parsing: "-3") == nil)
        #expect(ReplicaLatency(parsing: "5±") == nil)
        #expect(ReplicaLatency(milliseconds: 20, jitter: 5).description == "20±5")
    }
}
