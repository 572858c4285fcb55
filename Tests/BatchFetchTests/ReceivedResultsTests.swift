import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// What a batch iterator received and queues: results are moved through it in completion order
/// as delivered, and in input order as their indices say.
struct ReceivedResultsTests {
    private static func result(_ index: Int, bytes: Int = 0) -> FetchResult {
        FetchResult(
            index: index, request: Request("http://a.test/\(index)"),
            outcome: .success(
                Response(
                    status: 200, headers: HTTPHeaders([]), body: Data(count: bytes), effectiveURL: "http://a.test/")),
            attempts: 1)
    }

    private static func drain(_ received: inout ReceivedResults) -> [Int] {
        var indices: [Int] = []
        while let result = received.popFirst() {
            indices.append(result.index)
        }
        return indices
    }

    @Test func completionOrderKeepsTheOrderResultsWereDeliveredIn() async throws {
        let engine = try Engine(configuration: .testing())
        var received = ReceivedResults(engine: engine, orderWindow: nil)
        received.receive([Self.result(2), Self.result(0), Self.result(1)])
        received.receive([Self.result(4), Self.result(3)])
        #expect(Self.drain(&received) == [2, 0, 1, 4, 3])
        await engine.shutdown()
    }

    @Test func inputOrderHoldsLaterResultsAndTheirBytesUntilTheEarlierOnesCome() async throws {
        let engine = try Engine(configuration: .testing())
        var received = ReceivedResults(engine: engine, orderWindow: 8)
        received.receive([Self.result(2, bytes: 100), Self.result(0, bytes: 10), Self.result(3, bytes: 1_000)])
        #expect(Self.drain(&received) == [0])
        #expect(received.order?.pending == 2)
        #expect(received.order?.heldBytes == 1_100)
        received.receive([Self.result(1, bytes: 1)])
        #expect(Self.drain(&received) == [1, 2, 3])
        #expect(received.order?.pending == 0)
        #expect(received.order?.heldBytes == 0)
        await engine.shutdown()
    }

    private static func interrupted(_ index: Int) -> FetchResult {
        FetchResult(
            index: index, request: Request("http://a.test/\(index)"), outcome: .failure(.interrupted), attempts: 1)
    }

    @Test func anInterruptedBatchReleasesEveryAnsweredResultInItsPlace() async throws {
        let engine = try Engine(configuration: .testing())
        var received = ReceivedResults(engine: engine, orderWindow: 16)
        // 0 is slow; 1, 2, 4 and 6 answered; 3 never came back at all (a gap); 5, 7 and 8 were
        // in flight when the batch stopped.
        received.receive([Self.result(1), Self.result(4), Self.result(2)])
        #expect(Self.drain(&received).isEmpty)
        received.receiveLast([Self.interrupted(0), Self.interrupted(5), Self.result(6), Self.interrupted(7)])
        var kinds: [Int: FetchError.Kind?] = [:]
        var indices: [Int] = []
        while let result = received.popFirst() {
            indices.append(result.index)
            kinds[result.index] = result.error?.kind
        }
        #expect(indices == [0, 1, 2, 3, 4, 5, 6], "nothing after the last answered one")
        #expect(kinds[0] == .interrupted && kinds[3] == .interrupted && kinds[5] == .interrupted)
        #expect(kinds[1] == nil && kinds[6] == nil)
        #expect(received.order?.pending == 0)
        await engine.shutdown()
    }

    @Test func anInterruptedBatchInCompletionOrderDropsTheUnansweredAfterTheLastAnswered() async throws {
        let engine = try Engine(configuration: .testing())
        var received = ReceivedResults(engine: engine, orderWindow: nil)
        received.receive([Self.result(2)])
        #expect(Self.drain(&received) == [2])
        received.receiveLast([Self.interrupted(0), Self.result(3), Self.interrupted(4)])
        #expect(Self.drain(&received) == [0, 3])
        await engine.shutdown()
    }
}
