import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The state machine's part of `--split-min`: a helper holds a slot and counts on its host, ends
/// once, is dropped by a cancellation, and a parent restarted for the rest goes to the front.
struct EngineSplitStateMachineTests {
    private static let a = "http://a.test/"

    private func hostRunning(_ harness: EngineStateMachineHarness) -> Int {
        harness.machine.hostBudgets?.host(Substring("a.test"))?.running ?? -1
    }

    @Test func slotsAreIdleOnlyWhenNothingWaitsForOne() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 2 }
        harness.receive(["\(Self.a)0", "\(Self.a)1", "\(Self.a)2"], to: ResultSink())
        #expect(!harness.machine.hasIdleSlots)
        let started = harness.admit().started
        #expect(!harness.machine.hasIdleSlots, "all slots taken, one queued")
        harness.respond(started[0])
        #expect(!harness.machine.hasIdleSlots, "a slot free, but one queued for it")
        _ = harness.admit()
        harness.respond(harness.machine.running[0])
        #expect(harness.machine.hasIdleSlots)
    }

    @Test func aHelperHoldsASlotAndCountsOnItsHostUntilItEndsOnce() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 4 }
        harness.receive(["\(Self.a)big"], to: ResultSink())
        let parent = harness.admit().started[0]
        #expect(self.hostRunning(harness) == 1)
        let helper = Transfer(helperOf: parent, submittedAt: harness.now)
        harness.machine.beginHelper(helper, now: harness.now)
        #expect(harness.machine.running.count == 2)
        #expect(self.hostRunning(harness) == 2)
        harness.machine.helperEnded(helper, now: harness.now)
        harness.machine.helperEnded(helper, now: harness.now)
        #expect(harness.machine.running.count == 1)
        #expect(self.hostRunning(harness) == 1)
    }

    @Test func aCancellationStopsHelpersWithTheirParent() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 4 }
        let sink = ResultSink()
        harness.receive(["\(Self.a)big"], to: sink)
        let parent = harness.admit().started[0]
        let helper = Transfer(helperOf: parent, submittedAt: harness.now)
        harness.machine.beginHelper(helper, now: harness.now)
        harness.receive([], to: ResultSink(), cancelling: [sink])
        #expect(harness.record.stopped.count == 2)
        #expect(harness.record.stopped.contains { $0 === helper })
        #expect(harness.machine.running.isEmpty)
        #expect(self.hostRunning(harness) == 0)
    }

    @Test func aRestartedParentGoesToTheFrontOfTheQueueAndIsAnsweredOnce() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 1 }
        harness.receive(["\(Self.a)big", "\(Self.a)next"], to: ResultSink())
        let parent = harness.admit().started[0]
        harness.machine.restart(parent, now: harness.now)
        #expect(harness.machine.running.isEmpty)
        let again = harness.admit().started
        #expect(again.map(\.request.url) == ["\(Self.a)big"])
        #expect(again.first?.attempts == 2)
        harness.respond(parent)
        harness.deliver()
        #expect(harness.record.results.map(\.index) == [0])
    }
}
