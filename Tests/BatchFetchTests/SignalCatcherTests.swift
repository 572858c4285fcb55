import Foundation
import ProcessSignals
import Synchronization
import TestSupport
import Testing

/// The signals that stop a run reach its handler, whichever thread the kernel hands them to.
/// (A CI run lost a SIGINT while libdispatch's own signal source was in use.) SIGUSR1 and SIGUSR2
/// stand in for SIGINT here: the test process must not catch the signals its runner sends it.
@Suite(.serialized)
struct SignalCatcherTests {
    final class Counts: Sendable {
        let first = Atomic<Int>(0)
        let second = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    @Test func everySignalSentReachesTheHandlerWithItsNumber() async throws {
        let counts = Counts()
        let catcher = SignalCatcher(signals: [SIGUSR1, SIGUSR2]) { number in
            if number == SIGUSR1 {
                counts.first.add(1, ordering: .relaxed)
            } else {
                counts.second.add(1, ordering: .relaxed)
            }
        }
        defer { catcher.cancel() }
        // Busy threads with the signals unblocked, any of which the kernel may pick.
        let busy = (0..<4).map { _ in
            Thread {
                while !counts.stop.load(ordering: .relaxed) {}
            }
        }
        busy.forEach { $0.start() }
        defer { counts.stop.store(true, ordering: .relaxed) }
        for sent in 1...100 {
            kill(getpid(), sent.isMultiple(of: 2) ? SIGUSR2 : SIGUSR1)
            let arrived = await eventually(2) {
                counts.first.load(ordering: .relaxed) + counts.second.load(ordering: .relaxed) == sent
            }
            try #require(arrived, "signal \(sent) did not reach the handler")
        }
        #expect(counts.first.load(ordering: .relaxed) == 50)
        #expect(counts.second.load(ordering: .relaxed) == 50)
    }

    @Test func aSignalAfterCancelDoesNothingAndDoesNotReachTheNextCatcher() async throws {
        let counts = Counts()
        let earlier = SignalCatcher(signals: [SIGUSR1]) { _ in counts.first.add(1, ordering: .relaxed) }
        earlier.cancel()
        kill(getpid(), SIGUSR1)
        try await Task.sleep(for: .milliseconds(100))
        let later = SignalCatcher(signals: [SIGUSR1]) { _ in counts.second.add(1, ordering: .relaxed) }
        defer { later.cancel() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(counts.first.load(ordering: .relaxed) == 0)
        #expect(counts.second.load(ordering: .relaxed) == 0)
        kill(getpid(), SIGUSR1)
        #expect(await eventually(2) { counts.second.load(ordering: .relaxed) == 1 })
    }
}
