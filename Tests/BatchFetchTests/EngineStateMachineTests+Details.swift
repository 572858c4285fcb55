import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The attempt log the state machine keeps when ``TransferDetails/Kinds/attempts`` is asked for.
extension EngineStateMachineTests {
    @Test func eachAttemptIsLoggedOnItsTransferAndTheLogReachesTheResult() {
        var harness = EngineStateMachineHarness { $0.details = [.attempts] }
        let sink = ResultSink()
        harness.receive(["http://a.test/"], to: sink)
        harness.respond(harness.admit().started[0], status: 503, retryAfter: .seconds(2))
        harness.advance(by: .seconds(2))
        let retry = harness.admit().started
        harness.machine.startFailed(retry[0], FetchError(kind: .invalidURL, message: "no"), now: harness.now)
        harness.deliver()
        let result = harness.record.results[0]
        let attempts = result.details?.attempts ?? []
        // The retry that could not start sent nothing: no attempt, the result's error says why.
        #expect(attempts.map(\.status) == [503])
        #expect(attempts.map(\.retryAfter) == [.seconds(2)])
        #expect(result.attempts == 1 && result.error?.kind == .invalidURL)
    }

    @Test func withoutAttemptsAskedForNoLogIsKept() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        harness.receive(["http://a.test/"], to: sink)
        harness.respond(harness.admit().started[0], status: 200)
        harness.deliver()
        #expect(harness.record.results.count == 1 && harness.record.results[0].details == nil)
    }
}
