import Testing

@testable import BatchFetch

/// Dead hosts (issue 54): failures in a row make a host suspect, a probe confirms it down, its
/// requests then fail at once; an answer brings it back.
struct HostHealthTests {
    private static let second: UInt64 = 1_000_000_000

    @Test func threeFailuresInARowHoldTheHostUntilItsProbeWhichConfirmsItDown() {
        var health = HostHealth()
        #expect(health.admit("a.test", now: 0) == .go(probe: false))
        health.failed("a.test", probe: false, now: 10 * Self.second)
        health.failed("a.test", probe: false, now: 10 * Self.second)
        #expect(health.admit("a.test", now: 10 * Self.second) == .go(probe: false), "two are not enough")
        health.failed("a.test", probe: false, now: 10 * Self.second + 1)
        #expect(health.isSuspectOrDown("a.test") && !health.isSuspectOrDown("b.test"))
        // Held until the probe is due; then one request is the probe, the others wait for it.
        #expect(health.admit("a.test", now: 10 * Self.second + 2) == .hold(until: 11 * Self.second + 1))
        #expect(health.admit("a.test", now: 11 * Self.second + 1) == .go(probe: true))
        #expect(health.admit("a.test", now: 12 * Self.second) == .hold(until: 12 * Self.second + HostHealth.holdSlice))
        #expect(health.admit("b.test", now: 12 * Self.second) == .go(probe: false), "other hosts go on")
        // A request that was already in flight fails too: still suspect, the probe decides.
        health.failed("a.test", probe: false, now: 13 * Self.second)
        #expect(health.admit("a.test", now: 13 * Self.second) != .go(probe: true))
        health.failed("a.test", probe: true, now: 14 * Self.second)
        guard case .fail(let error) = health.admit("a.test", now: 15 * Self.second) else {
            Issue.record("a down host's request must fail at once")
            return
        }
        #expect(error.kind == .hostUnreachable)
        #expect(error.message.contains("5 failed connects in a row over 5.0 s"), "\(error.message)")
    }

    @Test func aDownHostIsProbedAgainLaterAndComesBackWhenItAnswers() {
        var health = HostHealth()
        for _ in 0..<3 {
            health.failed("a.test", probe: false, now: 0)
        }
        #expect(health.admit("a.test", now: Self.second) == .go(probe: true))
        health.failed("a.test", probe: true, now: 2 * Self.second)
        let reprobe = 2 * Self.second + HostHealth.reprobeInterval
        if case .fail = health.admit("a.test", now: reprobe - 1) {} else { Issue.record("not yet probed again") }
        #expect(health.admit("a.test", now: reprobe) == .go(probe: true))
        if case .fail = health.admit("a.test", now: reprobe + 1) {} else { Issue.record("one probe at a time") }
        health.answered("a.test")
        #expect(health.isEmpty && health.admit("a.test", now: reprobe + 2) == .go(probe: false))
    }

    @Test func aProbeThatEndsWithoutAVerdictLetsAnotherRequestProbe() {
        var health = HostHealth()
        for _ in 0..<3 {
            health.failed("a.test", probe: false, now: 0)
        }
        #expect(health.admit("a.test", now: Self.second) == .go(probe: true))
        health.probeEnded("a.test")
        #expect(health.admit("a.test", now: Self.second) == .go(probe: true))
    }

    /// Refused connections and connect timeouts count; a host that accepted and then said nothing
    /// in time is up (its requests end by their own timeouts).
    @Test func onlyConnectsThatFailedCount() {
        var connectTimeout = FetchError(kind: .timeout, message: "Connection timed out after 10000 milliseconds")
        connectTimeout.timedOutConnecting = true
        let slowAnswer = FetchError(kind: .timeout, message: "Operation too slow")
        #expect(
            HostHealth.counts(FetchError(kind: .connectFailed, message: "refused")) && HostHealth.counts(connectTimeout)
        )
        #expect(!HostHealth.counts(slowAnswer))
        for kind in [FetchError.Kind.transport, .httpStatus, .dnsFailure] {
            #expect(!HostHealth.counts(FetchError(kind: kind, message: "")))
        }
    }
}
