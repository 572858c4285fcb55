import Foundation
import TestSupport

@testable import BatchFetch
@testable import BatchFetchCache

/// Drives an ``EngineLoop/StateMachine`` as the engine loop does, with made-up transfers, outcomes
/// and a clock the test moves, recording the actions the machine asks for.
struct EngineStateMachineHarness {
    /// What the machine asked the loop to do; a class, so the action closures can record into it
    /// while the machine is being mutated.
    final class Record {
        var deliveries: [(sink: ResultSink, results: [FetchResult])] = []
        var stopped: [Transfer] = []

        /// Every delivered result, in delivery order.
        var results: [FetchResult] { self.deliveries.flatMap(\.results) }
    }

    static let seed: UInt64 = 27

    var machine: EngineLoop.StateMachine<SeededGenerator>
    let record = Record()
    /// The fake monotonic clock, in nanoseconds.
    var now: UInt64 = 1_000_000_000
    private var nextIndex = 0

    init(_ configure: (inout Engine.Configuration) -> Void = { _ in }) {
        var configuration = Engine.Configuration()
        configuration.maxInFlight = 4
        configuration.retry = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(10))
        configure(&configuration)
        self.machine = EngineLoop.StateMachine(
            configuration: configuration, random: SeededGenerator(seed: Self.seed), now: self.now)
    }

    func submission(_ url: String, to sink: ResultSink, index: Int) -> EngineCore.Submission {
        EngineCore.Submission(request: Request(url), index: index, sink: sink, submittedAt: self.now)
    }

    /// Hands the machine one inbox: `urls` submitted to `sink` (indices counting up across calls),
    /// then `cancelling`.
    mutating func receive(
        _ urls: [String], to sink: ResultSink, cancelling: [ResultSink] = [],
        decide: ((Request) -> HTTPCache.Decision)? = nil
    ) {
        var inbox = EngineCore.Inbox()
        for url in urls {
            inbox.submissions.append(self.submission(url, to: sink, index: self.nextIndex))
            self.nextIndex += 1
        }
        inbox.cancellations = cancelling
        let record = self.record
        let forEngine = decide.map { decide in { (request: Request) in decide(request).forEngine } }
        self.machine.receive(
            inbox, decide: forEngine, deliver: { record.deliveries.append(($0, $1)) },
            stop: { record.stopped.append($0) })
    }

    /// Takes every admission the machine gives now, as the loop does.
    /// - Returns: the transfers started, and the rate-limit wait that stopped admission, if any.
    mutating func admit() -> (started: [Transfer], rateWait: UInt64?) {
        var started: [Transfer] = []
        while true {
            switch self.machine.nextAdmission(now: self.now) {
            case .start(let transfer):
                started.append(transfer)
            case .rateLimited(let wait):
                return (started, wait)
            case .none:
                return (started, nil)
            }
        }
    }

    /// URLs of the transfers `admit()` starts now.
    mutating func admitURLs() -> [String] {
        self.admit().started.map(\.request.url)
    }

    /// The attempt of `transfer` ends with a response of `status`.
    mutating func respond(_ transfer: Transfer, status: Int = 200, body: String = "{}", retryAfter: Duration? = nil) {
        let response = Response(
            status: status, headers: HTTPHeaders([]), body: Data(body.utf8), effectiveURL: transfer.request.url)
        self.machine.transferFinished(transfer, .success(response), retryAfter: retryAfter, now: self.now)
    }

    /// Moves the clock and fires due timers, as the loop does at the top of a pass.
    mutating func advance(by duration: Duration) {
        self.now += UInt64(duration.nanoseconds)
        self.machine.timerFired(now: self.now)
    }

    /// Ends a pass as the loop does.
    mutating func passEnded(rateWait: UInt64? = nil) -> EngineLoop.StateMachine<SeededGenerator>.Next {
        let record = self.record
        return self.machine.passEnded(now: self.now, rateWait: rateWait) { record.deliveries.append(($0, $1)) }
    }

    /// Hands over everything collected.
    mutating func deliver() {
        let record = self.record
        self.machine.deliver(to: { record.deliveries.append(($0, $1)) })
    }
}

extension FetchResult {
    var status: Int? { self.response?.status }
}
