import BatchFetch
import Testing

/// `Timings.phases`: libcurl's running totals as consecutive phases that add up to the total.
struct TimingsPhasesTests {
    private func sum(_ phases: Timings.Phases) -> Duration {
        phases.nameLookup + phases.connect + phases.tlsHandshake + phases.firstByte + phases.download
    }

    @Test func aNewTLSConnectionSplitsIntoEachPhase() {
        let timings = Timings(
            queued: .microseconds(5), nameLookup: .microseconds(100), connect: .microseconds(300),
            tlsHandshake: .microseconds(1_000), preTransfer: .microseconds(1_010), firstByte: .microseconds(4_000),
            total: .microseconds(4_500))
        let phases = timings.phases
        #expect(phases.nameLookup == .microseconds(100))
        #expect(phases.connect == .microseconds(200))
        #expect(phases.tlsHandshake == .microseconds(700))
        #expect(phases.firstByte == .microseconds(3_000))
        #expect(phases.download == .microseconds(500))
        #expect(self.sum(phases) == timings.total)
    }

    @Test func plainHTTPHasNoTLSPhaseAndAReusedConnectionNoConnectPhase() {
        let plain = Timings(
            nameLookup: .microseconds(50), connect: .microseconds(150), preTransfer: .microseconds(160),
            firstByte: .microseconds(900), total: .microseconds(1_000)
        ).phases
        #expect(plain.tlsHandshake == .zero && plain.connect == .microseconds(100))
        #expect(plain.firstByte == .microseconds(750) && plain.download == .microseconds(100))
        // libcurl reports a reused connection's connect and TLS ends as 0 or before the lookup's.
        let reused = Timings(
            nameLookup: .microseconds(20), connect: .microseconds(10), preTransfer: .microseconds(30),
            firstByte: .microseconds(400), total: .microseconds(420)
        ).phases
        #expect(reused.connect == .zero && reused.tlsHandshake == .zero)
        #expect(reused.firstByte == .microseconds(380) && self.sum(reused) == .microseconds(420))
    }

    @Test func anAttemptWithoutAResponseByteSpendsItsWaitInFirstByte() {
        let timeout = Timings(
            nameLookup: .microseconds(10), connect: .microseconds(60), preTransfer: .microseconds(70),
            total: .milliseconds(500)
        ).phases
        #expect(timeout.firstByte == .milliseconds(500) - .microseconds(60))
        #expect(timeout.download == .zero)
    }
}
