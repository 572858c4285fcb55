import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The engine loop's de-duplication, driven without libcurl (see ``EngineStateMachineHarness``):
/// which requests share a transfer, which result carries its attempts, and what the replay cache
/// answers.
struct EngineDeduplicationTests {
    private static let a = "http://a.test/"
    private static let b = "http://b.test/"

    @Test func identicalRequestsShareOneTransferAndEveryWaiterGetsItsOutcome() {
        var harness = EngineStateMachineHarness()
        let first = ResultSink()
        let second = ResultSink()
        harness.receive([Self.a, Self.a], to: first)
        harness.receive([Self.a], to: second)
        let started = harness.admit().started
        #expect(started.count == 1)
        harness.respond(started[0], body: "{\"x\":1}")
        harness.deliver()
        #expect(harness.record.deliveries.map(\.results.count) == [2, 1])
        #expect(harness.record.deliveries.map { $0.sink === first } == [true, false])
        #expect(harness.record.results.map(\.index) == [0, 1, 2])
        #expect(harness.record.results.allSatisfy { $0.response?.body == Data("{\"x\":1}".utf8) })
        // The first waiter's result carries the attempt; the others name it and made none.
        #expect(harness.record.results.map(\.attempts) == [1, 0, 0])
        #expect(harness.record.results.map(\.sharedWith) == [nil, 0, 0])
        #expect(harness.record.results.map(\.totalTime) == [.zero, nil, nil])
    }

    @Test func aRepeatAfterTheTransferIsAnsweredFromTheReplayCache() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        harness.receive([Self.a], to: sink)
        harness.respond(harness.admit().started[0])
        harness.receive([Self.a], to: sink)
        #expect(harness.admit().started.isEmpty)
        harness.deliver()
        #expect(harness.record.results.map(\.index) == [0, 1])
        #expect(harness.record.results.map(\.attempts) == [1, 0])
        #expect(harness.record.results.map(\.sharedWith) == [nil, 0])
    }

    /// The tags of the requests (a command's line numbers) come back with the sharing, in flight
    /// and from the replay cache, so that a caller numbering requests its own way can name the owner.
    @Test func aSharedResultCarriesItsOwnersTag() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        func submit(_ indices: [Int]) {
            var inbox = EngineCore.Inbox()
            for index in indices {
                var request = Request(Self.a)
                request.tag = 100 + index
                inbox.submissions.append(
                    EngineCore.Submission(request: request, index: index, sink: sink, submittedAt: 0))
            }
            harness.machine.receive(inbox, decide: nil, deliver: { _, _ in }, stop: { _ in })
        }
        submit([0, 1])
        harness.respond(harness.admit().started[0], status: 404)
        submit([2])
        harness.deliver()
        #expect(harness.record.results.map(\.sharedWith) == [nil, 0, 0])
        #expect(harness.record.results.map(\.sharedWithTag) == [nil, 100, 100])
        #expect(harness.record.results.map(\.status) == [404, 404, 404])
    }

    /// The replay cache holds outcomes up to its byte limit (body, URL and 256 bytes each): the
    /// oldest goes first, and a repeat of it is transferred again while newer ones still replay.
    @Test func theReplayCacheLetsTheOldestGoAtItsLimit() {
        var harness = EngineStateMachineHarness { $0.replayCacheBytes = 800 }
        let sink = ResultSink()
        let body = String(repeating: "x", count: 200)
        harness.receive([Self.a, Self.b], to: sink)
        let started = harness.admit().started
        harness.respond(started[0], body: body)
        harness.respond(started[1], body: body)
        // a (≈ 470 bytes) made room for b: both would not fit in 800.
        harness.receive([Self.b, Self.a, Self.b], to: sink)
        #expect(harness.admitURLs() == [Self.a])
        harness.deliver()
        #expect(harness.record.results.map(\.index) == [0, 1, 2, 4])
        // An outcome larger than the whole limit is not kept, and evicts nothing.
        harness.respond(harness.machine.running[0], body: String(repeating: "y", count: 1000))
        harness.receive([Self.a, Self.b], to: sink)
        #expect(harness.admitURLs() == [Self.a])
        harness.deliver()
        #expect(harness.record.results.map(\.index) == [0, 1, 2, 4, 3, 6])
    }

    /// Sending a POST twice is not sending it once: each is transferred, also after one finished.
    @Test func nonIdempotentRequestsAreNeverMergedOrReplayed() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        var inbox = EngineCore.Inbox()
        for (index, method) in [Request.Method.post, .post, .patch, .patch, .put, .put].enumerated() {
            let request = Request(Self.a, method: method, body: Array("{}".utf8))
            inbox.submissions.append(EngineCore.Submission(request: request, index: index, sink: sink, submittedAt: 0))
        }
        harness.machine.receive(inbox, decide: nil, deliver: { _, _ in }, stop: { _ in })
        let started = harness.admit().started
        #expect(started.map(\.request.method) == [.post, .post, .patch, .patch])
        for transfer in started {
            harness.respond(transfer)
        }
        // The PUT waiting for a slot joined the first: idempotent requests still share.
        #expect(harness.admit().started.map(\.request.method) == [.put])
        var repeated = EngineCore.Inbox()
        repeated.submissions.append(
            EngineCore.Submission(
                request: Request(Self.a, method: .post, body: Array("{}".utf8)), index: 6, sink: sink, submittedAt: 0))
        harness.machine.receive(repeated, decide: nil, deliver: { _, _ in }, stop: { _ in })
        #expect(harness.admit().started.map(\.request.method) == [.post], "a finished POST is not replayed")
    }

    @Test func withoutDeduplicationIdenticalRequestsAreEachTransferred() {
        var harness = EngineStateMachineHarness { $0.deduplicate = false }
        let sink = ResultSink()
        harness.receive([Self.a, Self.a], to: sink)
        #expect(harness.admit().started.count == 2)
    }
}
