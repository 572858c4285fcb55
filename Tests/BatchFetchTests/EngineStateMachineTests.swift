import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

/// The engine loop's decisions, driven without libcurl: made-up transfers and outcomes, a clock
/// the test moves (see ``EngineStateMachineHarness``).
struct EngineStateMachineTests {
    private static let a = "http://a.test/"
    private static let b = "http://b.test/"

    // MARK: - admission

    @Test func admissionStartsNoMoreThanTheInFlightCap() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 2 }
        let sink = ResultSink()
        harness.receive((0..<5).map { "\(Self.a)\($0)" }, to: sink)
        let first = harness.admit().started
        #expect(first.map(\.request.url) == ["\(Self.a)0", "\(Self.a)1"])
        #expect(harness.admit().started.isEmpty)
        #expect(harness.passEnded() == .poll(milliseconds: 1000))

        harness.respond(first[0])
        // A freed slot with work queued: go round again rather than sleep.
        #expect(harness.passEnded() == .admitAgain)
        #expect(harness.admitURLs() == ["\(Self.a)2"])
        #expect(harness.machine.running.count == 2)
    }

    @Test func aTransferThatCannotStartEndsWithItsErrorAndFreesItsSlot() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 1 }
        let sink = ResultSink()
        harness.receive(["\(Self.a)0", "\(Self.a)1"], to: sink)
        let started = harness.admit().started
        harness.machine.startFailed(started[0], FetchError(kind: .other, message: "no handle"), now: harness.now)
        #expect(harness.admitURLs() == ["\(Self.a)1"])
        harness.deliver()
        #expect(harness.record.results.map(\.error?.kind) == [.other])
        #expect(harness.record.results.map(\.index) == [0])
        #expect(harness.record.results.map(\.attempts) == [0], "nothing was sent")
        #expect(harness.record.results[0].totalTime == nil)
    }

    @Test func theRateLimitDefersAdmissionUntilTheNextToken() {
        var harness = EngineStateMachineHarness {
            $0.rateLimit = Engine.RateLimit(requestsPerSecond: 10, burst: 1)
        }
        let sink = ResultSink()
        harness.receive(["\(Self.a)0", "\(Self.a)1"], to: sink)
        let (started, wait) = harness.admit()
        #expect(started.count == 1)
        #expect(wait == 100_000_000)
        #expect(harness.passEnded(rateWait: wait) == .poll(milliseconds: 100))
        harness.advance(by: .milliseconds(99))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .milliseconds(1))
        #expect(harness.admitURLs() == ["\(Self.a)1"])
    }

    // MARK: - host pauses and retries

    @Test func retryAfterOnA429PausesOnlyThatHost() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 1 }
        let sink = ResultSink()
        harness.receive(["\(Self.a)0", "\(Self.a)1", "\(Self.b)0"], to: sink)
        let first = harness.admit().started
        harness.respond(first[0], status: 429, retryAfter: .seconds(2))
        // a.test is paused: its queued request waits, b.test's goes ahead.
        #expect(harness.admitURLs() == ["\(Self.b)0"])
        harness.respond(harness.machine.running[0])
        // The poll is capped at a second; the pause itself ends at 2 s.
        #expect(harness.passEnded() == .poll(milliseconds: 1000))
        harness.advance(by: .milliseconds(1999))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .milliseconds(1))
        let retried = harness.admit().started
        #expect(retried.map(\.request.url) == ["\(Self.a)0"])
        #expect(retried.first?.attempts == 2)
        harness.respond(retried[0])
        #expect(harness.admitURLs() == ["\(Self.a)1"])
    }

    @Test func aRetryIsScheduledAtThePolicysBackoff() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        harness.receive([Self.a], to: sink)
        let transfer = harness.admit().started[0]
        harness.respond(transfer, status: 500)
        // The machine's generator, seeded alike, draws the same jitter.
        var generator = SeededGenerator(seed: EngineStateMachineHarness.seed)
        let delay = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(10))
            .backoff(attempt: 1, using: &generator)
        #expect(delay > .zero)
        // The loop sleeps until the retry is due, rounded up to whole milliseconds.
        #expect(harness.passEnded() == .poll(milliseconds: Int((delay.nanoseconds + 999_999) / 1_000_000)))
        harness.advance(by: delay - .nanoseconds(1))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .nanoseconds(1))
        #expect(harness.admit().started.map(\.attempts) == [2])
        harness.deliver()
        #expect(harness.record.results.isEmpty)
    }

    @Test func aRetryHonoursRetryAfterAndALongerOneEndsTheRetries() {
        var harness = EngineStateMachineHarness { $0.retry.maxRetryAfter = .seconds(5) }
        let sink = ResultSink()
        harness.receive([Self.a, Self.b], to: sink)
        let started = harness.admit().started
        harness.respond(started[0], status: 503, retryAfter: .seconds(3))
        harness.respond(started[1], status: 503, retryAfter: .seconds(6))
        harness.deliver()
        #expect(harness.record.results.map(\.request.url) == [Self.b])
        #expect(harness.record.results.map(\.status) == [503])
        #expect(
            harness.record.results.map(\.gaveUp) == [.retryAfterTooLong(requested: .seconds(6), limit: .seconds(5))])
        harness.advance(by: .milliseconds(2999))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .milliseconds(1))
        #expect(harness.admitURLs() == [Self.a])
    }

    @Test func retriesEndAfterThePolicysLastAttemptWithItsOutcome() {
        var harness = EngineStateMachineHarness { $0.retry.maxRetries = 1 }
        let sink = ResultSink()
        harness.receive([Self.a], to: sink)
        harness.respond(harness.admit().started[0], status: 502)
        harness.advance(by: .seconds(1))
        let retry = harness.admit().started
        harness.respond(retry[0], status: 502)
        harness.deliver()
        #expect(harness.record.results.map(\.status) == [502])
        #expect(harness.record.results.map(\.attempts) == [2])
        #expect(harness.record.results.map(\.gaveUp) == [.retriesExhausted(attempts: 2)])
        // From the first attempt's start, the wait for the retry included.
        #expect(harness.record.results.map(\.totalTime) == [.seconds(1)])
    }

    // MARK: - cancellation

    @Test func cancellationsInTheSameInboxAfterTheSubmissionsDropThem() {
        var harness = EngineStateMachineHarness()
        let cancelled = ResultSink()
        harness.receive([Self.a, Self.b], to: cancelled, cancelling: [cancelled])
        #expect(harness.admit().started.isEmpty)
        #expect(harness.passEnded() == .poll(milliseconds: 1000))
        #expect(harness.record.deliveries.isEmpty)
    }

    @Test func cancellingASinkStopsItsTransfersInFlightAndKeepsSharedOnesForOthers() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 3 }
        let cancelled = ResultSink()
        let kept = ResultSink()
        harness.receive([Self.a, Self.b, "\(Self.a)only", "\(Self.a)queued"], to: cancelled)
        harness.receive([Self.b], to: kept)
        let started = harness.admit().started
        #expect(started.count == 3)
        harness.receive([], to: kept, cancelling: [cancelled])
        // Of the three in flight, b.test's is shared with `kept`; the other two stop.
        #expect(Set(harness.record.stopped.map(\.request.url)) == [Self.a, "\(Self.a)only"])
        #expect(harness.machine.running.map(\.request.url) == [Self.b])
        // The queued one was dropped too: nothing is started in the freed slots.
        #expect(harness.admit().started.isEmpty)
        harness.respond(harness.machine.running[0])
        harness.deliver()
        #expect(harness.record.deliveries.count == 1)
        #expect(harness.record.deliveries.first?.sink === kept)
        #expect(harness.record.results.map(\.index) == [4])
    }

    @Test func cancellingASinkDropsItsScheduledRetries() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        harness.receive([Self.a], to: sink)
        harness.respond(harness.admit().started[0], status: 503, retryAfter: .seconds(1))
        harness.receive([], to: sink, cancelling: [sink])
        harness.advance(by: .seconds(2))
        #expect(harness.admit().started.isEmpty)
        harness.deliver()
        #expect(harness.record.deliveries.isEmpty)
        // The request is forgotten: a new submission of it is transferred, not joined to the dropped one.
        harness.receive([Self.a], to: ResultSink())
        #expect(harness.admitURLs() == [Self.a])
    }

    @Test func shutdownStopsTransfersInFlightAndAnswersEveryWaiterCancelled() {
        var harness = EngineStateMachineHarness { $0.maxInFlight = 1 }
        let sink = ResultSink()
        harness.receive([Self.a, Self.b], to: sink)
        let started = harness.admit().started
        let record = harness.record
        harness.machine.shutdown(
            now: harness.now, stop: { record.stopped.append($0) }, deliver: { record.deliveries.append(($0, $1)) })
        #expect(record.stopped.map(\.request.url) == started.map(\.request.url))
        #expect(Set(record.results.map(\.index)) == [0, 1])
        #expect(record.results.allSatisfy { $0.error?.kind == .cancelled })
        #expect(harness.machine.running.isEmpty)
    }

    // MARK: - handing results over

    @Test func completionsAreHandedOverInBatchesWhileTheLoopKeepsAdmitting() {
        let batch = EngineLoop.StateMachine<SeededGenerator>.deliveryBatch
        var harness = EngineStateMachineHarness { $0.maxInFlight = batch }
        let sink = ResultSink()
        harness.receive((0..<(batch + 1)).map { "\(Self.a)\($0)" }, to: sink)
        let started = harness.admit().started
        for transfer in started.prefix(batch - 1) {
            harness.respond(transfer)
        }
        #expect(harness.passEnded() == .admitAgain)
        #expect(harness.record.deliveries.isEmpty)
        harness.respond(started[batch - 1])
        #expect(harness.passEnded() == .admitAgain)
        #expect(harness.record.deliveries.map(\.results.count) == [batch])
        // Nothing more to admit: the rest goes out before the loop sleeps.
        harness.respond(harness.admit().started[0])
        #expect(harness.passEnded() == .poll(milliseconds: 1000))
        #expect(harness.record.results.count == batch + 1)
    }

    @Test func cacheAnswersAreHandedOverMidInboxByCountAndByBytes() {
        let batch = EngineLoop.StateMachine<SeededGenerator>.deliveryBatch
        let bytes = EngineLoop.StateMachine<SeededGenerator>.deliveryBytes
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        let small = Response(status: 200, headers: HTTPHeaders([]), body: Data("{}".utf8), effectiveURL: Self.a)
        harness.receive((0..<(batch + 3)).map { "\(Self.a)\($0)" }, to: sink) { _ in .answer(.success(small), .hit) }
        #expect(harness.record.deliveries.map(\.results.count) == [batch])
        #expect(harness.machine.undelivered == 3)
        #expect(harness.admit().started.isEmpty)

        var bytesHarness = EngineStateMachineHarness()
        let large = Response(
            status: 200, headers: HTTPHeaders([]), body: Data(count: bytes / 2 + 1), effectiveURL: Self.a)
        bytesHarness.receive([Self.a, Self.b, "\(Self.a)x"], to: sink) { _ in .answer(.success(large), .hit) }
        #expect(bytesHarness.record.deliveries.map(\.results.count) == [2])
        #expect(bytesHarness.record.results.allSatisfy { $0.cache == .hit && $0.attempts == 0 })
    }

    @Test func requestsTheCacheLetsThroughAreSentAsItSaysAndCarryItsCompletion() {
        var harness = EngineStateMachineHarness()
        let sink = ResultSink()
        let conditional = Request(Self.a, headers: [HeaderField(name: "If-None-Match", value: "\"v1\"")])
        harness.receive([Self.a, Self.b], to: sink) { request in
            request.url == Self.a
                ? .send(conditional, HTTPCache.Pending(original: request, stored: nil)) : .bypass
        }
        let started = harness.admit().started
        #expect(started.map(\.request) == [conditional, Request(Self.b)])
        for transfer in started {
            harness.respond(transfer)
        }
        harness.deliver()
        #expect(harness.record.results.map { $0.cacheCompletion?.pending?.original } == [Request(Self.a), nil])
        #expect(harness.record.results.allSatisfy { $0.cacheCompletion != nil })
    }
}

/// Transfers the replay cache lets go are freed by a consumer, not the engine thread, within bounds.
struct RetiredTransferTests {
    private static func retired(_ count: Int) -> RetiredTransfers {
        let sink = ResultSink()
        let transfers = (0..<count).map { index in
            let submission = EngineCore.Submission(
                request: Request("http://a.test/\(index)"), index: index, sink: sink, submittedAt: 0)
            return Transfer(request: submission.request, hash: index, waiter: Waiter(submission), submittedAt: 0)
        }
        return RetiredTransfers(transfers: transfers)
    }

    @Test func aSinkTakesTransfersUpToItsLimitAndItsConsumerFreesThemWhenItTakes() async {
        let sink = ResultSink()
        var retired = Self.retired(ResultSink.retiredLimit - 1)
        weak let first = retired.transfers.first
        sink.retire(&retired)
        #expect(retired.transfers.isEmpty && sink.retiredCount == ResultSink.retiredLimit - 1)
        #expect(first != nil, "the sink holds what it took")
        retired = Self.retired(2)
        sink.retire(&retired)
        #expect(retired.transfers.isEmpty && sink.retiredCount == ResultSink.retiredLimit + 1)
        // At the limit the engine keeps (and frees) what it lets go.
        retired = Self.retired(1)
        sink.retire(&retired)
        #expect(retired.transfers.count == 1 && sink.retiredCount == ResultSink.retiredLimit + 1)
        sink.deliver([
            FetchResult(index: 0, request: Request("http://a.test/"), outcome: .failure(.cancelled), attempts: 1)
        ])
        #expect(await sink.take().count == 1)
        #expect(sink.retiredCount == 0)
        #expect(first == nil, "freed by the consumer as it took results")
        sink.cancel()
        sink.retire(&retired)
        #expect(retired.transfers.count == 1 && sink.retiredCount == 0)
    }

    @Test func theReplayCachesSmallEvictionsGoToTheNextDeliverysSink() {
        var harness = EngineStateMachineHarness { $0.replayCacheBytes = 800 }
        let sink = ResultSink()
        harness.receive(["http://a.test/", "http://b.test/", "http://c.test/"], to: sink)
        let started = harness.admit().started
        harness.respond(started[0], body: String(repeating: "x", count: 200))
        harness.respond(started[1], body: String(repeating: "x", count: 200))
        #expect(harness.machine.retired.transfers.map(\.request.url) == ["http://a.test/"])
        harness.deliver()
        #expect(harness.machine.retired.transfers.isEmpty && sink.retiredCount == 1)
        // A large body is freed where it is let go: the consumer would hold it for nothing.
        var large = EngineStateMachineHarness { $0.replayCacheBytes = 64 * 1024 }
        let other = ResultSink()
        large.receive(["http://a.test/", "http://b.test/"], to: other)
        let both = large.admit().started
        large.respond(both[0], body: String(repeating: "x", count: 20 * 1024))
        large.respond(both[1], body: String(repeating: "x", count: 60 * 1024))
        large.deliver()
        #expect(large.machine.retired.transfers.isEmpty && other.retiredCount == 0)
    }
}
