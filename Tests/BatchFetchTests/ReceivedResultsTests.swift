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
}
