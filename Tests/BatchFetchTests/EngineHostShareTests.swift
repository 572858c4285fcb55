import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The slots shared fairly between hosts, and dead hosts failing fast, in the engine's state
/// machine on its fake clock (issue 54).
struct EngineHostShareTests {
    private static let dead = "http://dead.test/"
    private static let live = "http://live.test/"

    private static func count(_ transfers: [Transfer], _ prefix: String) -> Int {
        transfers.count { $0.request.url.hasPrefix(prefix) }
    }

    /// A list that starts with a host that never answers: it gets its share of the slots, not all
    /// of them, and the live host behind it starts at once.
    @Test func aHostWithWorkWaitingGetsItsShareWhileAnotherHoldsTheRest() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 64 }
        let sink = ResultSink()
        harness.receive((0..<200).map { "\(Self.dead)\($0)" } + (0..<200).map { "\(Self.live)\($0)" }, to: sink)
        let started = harness.admit().started
        #expect(started.count == 64)
        #expect(Self.count(started, Self.dead) == 32 && Self.count(started, Self.live) == 32)
        // The live host's answers free slots only it takes, as long as the dead host holds its share.
        var inFlightLive = started.filter { $0.request.url.hasPrefix(Self.live) }
        var liveDone = 0
        while let transfer = inFlightLive.popLast() {
            harness.respond(transfer)
            liveDone += 1
            let next = harness.admit().started
            #expect(Self.count(next, Self.dead) == 0)
            inFlightLive += next
        }
        #expect(liveDone == 200)
    }

    /// One host alone, or the only one with work left once it has answered, gets every slot.
    @Test func aHostAloneTakesEverySlot() {
        var alone = EngineStateMachineHarness { $0.maxInFlight = 64 }
        alone.receive((0..<200).map { "\(Self.dead)\($0)" }, to: ResultSink())
        #expect(alone.admit().started.count == 64)

        var harness = EngineStateMachineHarness { $0.maxInFlight = 64 }
        let sink = ResultSink()
        let other = "http://other.test/"
        harness.receive((0..<10).map { "\(Self.live)\($0)" } + (0..<200).map { "\(other)\($0)" }, to: sink)
        let started = harness.admit().started
        // other.test has not answered yet: half the slots while another host is in play.
        #expect(Self.count(started, Self.live) == 10 && Self.count(started, other) == 32)
        let first = started.first { $0.request.url.hasPrefix(other) }
        if let first {
            harness.respond(first)
        }
        // It answered and is the only host with work waiting: it fills every free slot.
        #expect(Self.count(harness.admit().started, other) == 23)
        for transfer in started where transfer.request.url.hasPrefix(Self.live) {
            harness.respond(transfer)
        }
        #expect(Self.count(harness.admit().started, other) == 10)
    }

    /// A host that never answers holds at most half the slots while the others have nothing
    /// waiting for a moment (a list read in bursts): their next work starts at once instead of
    /// waiting out its connects.
    @Test func aHostThatHasNotAnsweredLeavesRoomForWorkReadLater() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 64 }
        let sink = ResultSink()
        harness.receive((0..<4).map { "\(Self.live)\($0)" } + (0..<200).map { "\(Self.dead)\($0)" }, to: sink)
        let started = harness.admit().started
        #expect(Self.count(started, Self.dead) == 32)
        for transfer in started where transfer.request.url.hasPrefix(Self.live) {
            harness.respond(transfer)
        }
        #expect(harness.admit().started.isEmpty, "live.test is idle: dead.test still takes no more")
        harness.receive((4..<30).map { "\(Self.live)\($0)" }, to: sink)
        #expect(Self.count(harness.admit().started, Self.live) == 26)
    }

    /// A retry whose backoff ended goes before its host's requests not yet sent, also when the
    /// host is at its share and the retry waits in the host's queue.
    @Test func aRetryKeepsItsPlaceBeforeFreshWork() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 2 }
        let sink = ResultSink()
        harness.receive((0..<5).map { "\(Self.live)\($0)" } + (0..<5).map { "\(Self.dead)\($0)" }, to: sink)
        let started = harness.admit().started
        #expect(started.map(\.request.url) == ["\(Self.live)0", "\(Self.dead)0"])
        harness.respond(started[0], status: 500)
        let next = harness.admit().started
        #expect(next.map(\.request.url) == ["\(Self.live)1"])
        harness.advance(by: .seconds(1))
        // live.test holds its share (1 of 2 slots): its retry waits in its queue, first.
        #expect(harness.admit().started.isEmpty)
        harness.respond(next[0])
        #expect(harness.admitURLs() == ["\(Self.live)0"])
    }

    /// Every attempt at dead.test fails after the 10 s connect timeout: after the first wave and
    /// one probe, its remaining requests fail at once as hostUnreachable, unsent, and the run ends
    /// in seconds rather than after every request's four attempts.
    @Test func aDeadHostsRequestsFailAtOnceAfterAProbeConfirmsIt() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 16 }
        let sink = ResultSink()
        harness.receive((0..<100).map { "\(Self.dead)\($0)" } + (0..<40).map { "\(Self.live)\($0)" }, to: sink)
        var inFlight: [(due: UInt64, transfer: Transfer)] = []
        var timeout = FetchError(kind: .timeout, message: "Connection timed out after 10000 ms")
        timeout.timedOutConnecting = true
        var probes = 0
        while harness.now < 120_000_000_000 {
            for transfer in harness.admit().started {
                let isDead = transfer.request.url.hasPrefix(Self.dead)
                probes += transfer.isProbe ? 1 : 0
                let wait: UInt64 = isDead ? (transfer.isProbe ? 3_000_000_000 : 10_000_000_000) : 50_000_000
                inFlight.append((harness.now + wait, transfer))
            }
            for entry in inFlight where entry.due <= harness.now {
                if entry.transfer.request.url.hasPrefix(Self.dead) {
                    harness.machine.transferFinished(
                        entry.transfer, .failure(timeout), retryAfter: nil, now: harness.now)
                } else {
                    harness.respond(entry.transfer)
                }
            }
            inFlight.removeAll { $0.due <= harness.now }
            harness.deliver()
            if harness.record.results.count == 140 {
                break
            }
            harness.advance(by: .milliseconds(10))
        }
        let results = harness.record.results
        #expect(results.count == 140)
        #expect(harness.now < 20_000_000_000, "ended at \(Double(harness.now) / 1e9) s")
        #expect(probes == 1)
        let dead = results.filter { $0.request.url.hasPrefix(Self.dead) }
        let unreachable = dead.filter { $0.error?.kind == .hostUnreachable }
        #expect(dead.count == 100 && dead.allSatisfy { $0.error != nil })
        // The first wave (its share, 8) and the probe went out; no other request was sent.
        #expect(unreachable.count >= 90 && dead.reduce(0) { $0 + $1.attempts } <= 10, "\(dead.map(\.attempts))")
        #expect(results.filter { $0.request.url.hasPrefix(Self.live) }.allSatisfy { $0.status == 200 })
    }
}
