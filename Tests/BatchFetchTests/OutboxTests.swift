import Foundation
import Testing

@testable import BatchFetch

/// The engine thread's outbox: results leave in the order they finished, one hand-over per run
/// of results for the same sink, and the outbox is empty after.
struct OutboxTests {
    private static func result(_ index: Int) -> FetchResult {
        FetchResult(
            index: index, request: Request("http://a.test/\(index)"),
            outcome: .failure(FetchError(kind: .other, message: "made up")), attempts: 1)
    }

    @Test func oneSinksResultsGoOutTogetherInOrderAndTheOutboxStartsAgainEmpty() {
        var outbox = Outbox()
        let sink = ResultSink()
        for index in 0..<3 {
            outbox.append(sink, Self.result(index))
        }
        #expect(outbox.count == 3)
        #expect(outbox.lastSink === sink)
        var deliveries: [(sink: ResultSink, indices: [Int])] = []
        outbox.drain { deliveries.append(($0, $1.map(\.index))) }
        #expect(deliveries.map(\.indices) == [[0, 1, 2]])
        #expect(deliveries.allSatisfy { $0.sink === sink })
        #expect(outbox.isEmpty && outbox.lastSink == nil)

        outbox.append(sink, Self.result(3))
        deliveries.removeAll()
        outbox.drain { deliveries.append(($0, $1.map(\.index))) }
        #expect(deliveries.map(\.indices) == [[3]])
    }

    @Test func resultsForSeveralSinksGoOutAsRunsInTheOrderTheyFinished() {
        var outbox = Outbox()
        let first = ResultSink()
        let second = ResultSink()
        for (index, sink) in [first, first, second, second, second, first].enumerated() {
            outbox.append(sink, Self.result(index))
        }
        #expect(outbox.lastSink === first)
        var deliveries: [(sink: ResultSink, indices: [Int])] = []
        outbox.drain { deliveries.append(($0, $1.map(\.index))) }
        #expect(deliveries.map(\.indices) == [[0, 1], [2, 3, 4], [5]])
        #expect(deliveries.map { $0.sink === first } == [true, false, true])
        #expect(outbox.isEmpty)

        var nothing = 0
        outbox.drain { _, _ in nothing += 1 }
        #expect(nothing == 0)
    }

    @Test func deliveriesThatWaitForTheConsumerAreTakenTogetherInOrder() async {
        let sink = ResultSink()
        sink.deliver([Self.result(0), Self.result(1)])
        sink.deliver([Self.result(2)])
        sink.deliver([Self.result(3), Self.result(4)])
        #expect(await sink.take().map(\.index) == [0, 1, 2, 3, 4])
        sink.deliver([Self.result(5)])
        #expect(await sink.take().map(\.index) == [5])
    }
}
