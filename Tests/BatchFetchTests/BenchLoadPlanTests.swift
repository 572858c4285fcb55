import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``LoadPlan``, its duration syntax, and the request cycle and schedule a ``LoadGenerator`` follows.
struct BenchLoadPlanTests {
    @Test func durationsParseWithOrWithoutAUnit() {
        #expect(LoadPlan.parseDuration("10") == .seconds(10))
        #expect(LoadPlan.parseDuration("1.5s") == .milliseconds(1500))
        #expect(LoadPlan.parseDuration("500ms") == .milliseconds(500))
        #expect(LoadPlan.parseDuration("2m") == .seconds(120))
        #expect(LoadPlan.parseDuration("1h") == .seconds(3600))
        for bad in ["", "s", "-1s", "ten", "1e3", "1 s", "nan", "inf", "5d", "99999999999999h"] {
            #expect(LoadPlan.parseDuration(bad) == nil, "\(bad)")
        }
    }

    @Test func plansWithNothingToDoAreRefused() {
        let request = Request("http://127.0.0.1:1/")
        #expect(LoadPlan(requests: []).problem != nil)
        #expect(LoadPlan(requests: [request], stop: .count(0)).problem != nil)
        #expect(LoadPlan(requests: [request], stop: .duration(.zero)).problem != nil)
        #expect(LoadPlan(requests: [request], pacing: .openLoop(requestsPerSecond: 0)).problem != nil)
        #expect(LoadPlan(requests: [request], pacing: .openLoop(requestsPerSecond: .infinity)).problem != nil)
        #expect(LoadPlan(requests: [request], stop: .count(1), pacing: .openLoop(requestsPerSecond: 5)).problem == nil)
    }

    @Test func theCycleRepeatsTheRequestsInOrderAndStopsAtTheCount() {
        let requests = ["a", "b", "c"].map { Request("http://h/\($0)") }
        let cycle = RequestCycle(requests, stop: .count(7), start: .now)
        #expect(Array(cycle).map(\.url) == ["a", "b", "c", "a", "b", "c", "a"].map { "http://h/\($0)" })
    }

    @Test func aTimedCycleEndsOnceTheDeadlineHasPassed() {
        let past = ContinuousClock.now - .seconds(1)
        var expired = RequestCycle([Request("http://h/")], stop: .duration(.milliseconds(10)), start: past)
        #expect(expired.next() == nil)
        var running = RequestCycle([Request("http://h/")], stop: .duration(.seconds(60)), start: .now)
        #expect(running.next() != nil && running.next() != nil)
    }

    @Test func requestKIsDueAtKOverTheRate() {
        let schedule = OpenLoopSchedule(requestsPerSecond: 400, stop: .count(3))
        #expect(schedule.offset(of: 0) == .zero)
        #expect(schedule.offset(of: 1) == .microseconds(2500))
        #expect(schedule.offset(of: 2) == .milliseconds(5))
        #expect(schedule.offset(of: 3) == nil)
    }

    @Test func aTimedScheduleIssuesRateTimesDurationRequests() {
        let schedule = OpenLoopSchedule(requestsPerSecond: 1000, stop: .duration(.seconds(2)))
        #expect(schedule.offset(of: 1999) == .milliseconds(1999))
        #expect(schedule.offset(of: 2000) == nil)
        // No drift: the millionth offset is exact, not a sum of rounded steps.
        let fast = OpenLoopSchedule(requestsPerSecond: 3, stop: .count(.max))
        #expect(fast.offset(of: 3_000_000) == .seconds(1_000_000))
    }

    /// The open loop's batches: each handed over in an array of its own size, the batch buffer
    /// keeping its capacity (no read-ahead-sized allocation per batch, held while it is answered).
    @Test func aBatchIsHandedOverAtItsOwnSizeAndTheBufferKeepsItsCapacity() {
        var buffer: [Request] = []
        buffer.reserveCapacity(256)
        let capacity = buffer.capacity
        var taken: [[Request]] = []
        for round in 0..<100 {
            buffer.append(Request("http://h/\(round)"))
            taken.append(LoadGenerator.takeAll(&buffer))
            #expect(buffer.isEmpty && buffer.capacity == capacity, "round \(round)")
        }
        #expect(taken.allSatisfy { $0.count == 1 && $0.capacity < 16 }, "\(taken.map(\.capacity).max() ?? 0)")
        #expect(taken.map { $0[0].url } == (0..<100).map { "http://h/\($0)" })
    }
}
