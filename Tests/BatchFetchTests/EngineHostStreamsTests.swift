import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// A host's share growing when another runs out of work, and hosts that multiplex getting streams
/// of their own with `--http2`, in the engine's state machine (issue 54).
struct EngineHostStreamsTests {
    private static func urls(_ host: String, _ count: Int) -> [String] {
        (0..<count).map { "http://\(host).test/\($0)" }
    }

    private static func count(_ transfers: [Transfer], _ host: String) -> Int {
        transfers.count { $0.request.url.hasPrefix("http://\(host).test/") }
    }

    private static func respond(
        _ harness: inout EngineStateMachineHarness, _ transfer: Transfer, _ version: HTTPVersion
    ) {
        let response = Response(
            status: 200, headers: HTTPHeaders([]), body: Data("{}".utf8), effectiveURL: transfer.request.url,
            httpVersion: version)
        harness.machine.transferFinished(transfer, .success(response), retryAfter: nil, now: harness.now)
    }

    /// A slow host held at its share takes the slots another host freed when that host has no
    /// work left, at once, not when one of its own (slow) transfers ends; a host that never
    /// answered (dead, for all we know) waits for its own.
    @Test func aHostAtItsShareTakesTheSlotsAnotherLeftWithoutWaitingForItsOwn() {
        for answered in [true, false] {
            var harness = EngineStateMachineHarness { $0.maxInFlight = 8 }
            let sink = ResultSink()
            harness.receive(Self.urls("slow", 100) + Self.urls("fast", 4), to: sink)
            var started = harness.admit().started
            #expect(Self.count(started, "slow") == 4 && Self.count(started, "fast") == 4)
            if answered, let first = started.firstIndex(where: { $0.request.url.hasPrefix("http://slow.test/") }) {
                harness.respond(started.remove(at: first))
                #expect(Self.count(harness.admit().started, "slow") == 1)
            }
            for transfer in started where transfer.request.url.hasPrefix("http://fast.test/") {
                harness.respond(transfer)
            }
            let next = harness.admit().started
            #expect(Self.count(next, "slow") == (answered ? 4 : 0), "answered: \(answered)")
        }
    }

    /// With `--http2`, a host that answered over HTTP/2 gets `-c` streams of its own: eight hosts
    /// each reach as many in flight as one host alone would, not an eighth of it.
    @Test func hostsThatMultiplexGetTheirOwnStreams() {
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 8
            $0.httpVersion = .http2
        }
        let sink = ResultSink()
        let hosts = (0..<4).map { "h\($0)" }
        harness.receive(hosts.flatMap { Self.urls($0, 50) }, to: sink)
        var inFlight = harness.admit().started
        #expect(inFlight.count == 8)
        // One HTTP/2 answer per host: each leaves the shared slots for eight streams of its own.
        for host in hosts {
            guard let index = inFlight.firstIndex(where: { $0.request.url.hasPrefix("http://\(host).test/") }) else {
                Issue.record("no transfer of \(host) started")
                return
            }
            Self.respond(&harness, inFlight.remove(at: index), .http2)
        }
        inFlight += harness.admit().started
        #expect(inFlight.count == 32)
        for host in hosts {
            #expect(Self.count(inFlight, host) == 8)
        }
    }

    /// Without `--http2` an HTTP/2 answer changes nothing: the hosts share the slots.
    @Test func withoutHTTP2RequestedTheHostsShareTheSlots() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 8 }
        let sink = ResultSink()
        harness.receive(Self.urls("a", 50) + Self.urls("b", 50), to: sink)
        var inFlight = harness.admit().started
        Self.respond(&harness, inFlight.removeFirst(), .http2)
        inFlight += harness.admit().started
        #expect(inFlight.count == 8)
    }

    /// Hosts over HTTP/1.1 beside hosts that multiplex still share the `-c` slots, and no more.
    @Test func plainHostsBesideMultiplexingOnesShareTheSlots() {
        var harness = EngineStateMachineHarness {
            $0.maxInFlight = 8
            $0.httpVersion = .http2
        }
        let sink = ResultSink()
        harness.receive(Self.urls("h2", 50) + Self.urls("p1", 50) + Self.urls("p2", 50), to: sink)
        var inFlight = harness.admit().started
        // The plain hosts have answered (a host that never did takes no slot another left).
        for plain in ["p1", "p2"] {
            if let first = inFlight.firstIndex(where: { $0.request.url.hasPrefix("http://\(plain).test/") }) {
                harness.respond(inFlight.remove(at: first))
                inFlight += harness.admit().started
            }
        }
        guard let first = inFlight.firstIndex(where: { $0.request.url.hasPrefix("http://h2.test/") }) else {
            Issue.record("h2.test did not start")
            return
        }
        Self.respond(&harness, inFlight.remove(at: first), .http2)
        inFlight += harness.admit().started
        #expect(Self.count(inFlight, "h2") == 8)
        #expect(Self.count(inFlight, "p1") + Self.count(inFlight, "p2") == 8)
        #expect(Self.count(inFlight, "p1") == 4)
        // A plain host's answer frees a shared slot, which a plain host takes.
        guard let plain = inFlight.firstIndex(where: { $0.request.url.hasPrefix("http://p1.test/") }) else {
            return
        }
        Self.respond(&harness, inFlight.remove(at: plain), .http1_1)
        let next = harness.admit().started
        #expect(next.count == 1 && Self.count(next, "p1") == 1)
    }
}
