import TestSupport
import Testing

@testable import BatchFetch

/// The de-duplication table: lookups by hash and request, removal by identity with the entries
/// after a hole shifted back, growth past half full.
struct TransferTableTests {
    private static func transfer(_ url: String, hash: Int) -> Transfer {
        let submission = EngineCore.Submission(request: Request(url), index: 0, sink: ResultSink(), submittedAt: 0)
        return Transfer(request: submission.request, hash: hash, waiter: Waiter(submission), submittedAt: 0)
    }

    @Test func requestsSharingAHashAreToldApartAndFoundAfterRemovals() {
        var table = TransferTable(capacity: 4)
        // Eight requests on two hashes (every one probes past the others), then one elsewhere.
        let colliding = (0..<8).map { Self.transfer("http://a.test/\($0)", hash: $0 % 2 == 0 ? 5 : 21) }
        for transfer in colliding {
            table.insert(transfer, hash: transfer.hash ?? 0)
        }
        let other = Self.transfer("http://b.test/", hash: 6)
        table.insert(other, hash: 6)
        #expect(table.count == 9)
        for transfer in colliding + [other] {
            #expect(table.find(transfer.request, hash: transfer.hash ?? 0) === transfer)
        }
        #expect(table.find(Request("http://a.test/0"), hash: 21) == nil, "same request, other hash")
        #expect(table.find(Request("http://a.test/9"), hash: 5) == nil, "same hash, other request")
        // Remove from the front, the middle and the end of the runs: the rest stay reachable.
        for index in [0, 3, 7, 4] {
            table.remove(colliding[index], hash: colliding[index].hash ?? 0)
            #expect(table.find(colliding[index].request, hash: colliding[index].hash ?? 0) == nil)
        }
        table.remove(other, hash: 6)
        table.remove(other, hash: 6)
        #expect(table.count == 4)
        for index in [1, 2, 5, 6] {
            #expect(table.find(colliding[index].request, hash: colliding[index].hash ?? 0) === colliding[index])
        }
    }

    @Test func manyInsertsAndRemovalsKeepEveryLiveEntryReachable() {
        var table = TransferTable(capacity: 2)
        var live: [Transfer] = []
        var generator = SeededGenerator(seed: 7)
        for round in 0..<4000 {
            if live.count > 50 && generator.next(3) == 0 {
                let gone = live.remove(at: generator.next(live.count))
                table.remove(gone, hash: gone.hash ?? 0)
            } else {
                // Few distinct hashes and a small mask: long runs that wrap around the array.
                let transfer = Self.transfer("http://c.test/\(round)", hash: generator.next(64))
                table.insert(transfer, hash: transfer.hash ?? 0)
                live.append(transfer)
            }
        }
        #expect(table.count == live.count)
        #expect(live.allSatisfy { table.find($0.request, hash: $0.hash ?? 0) === $0 })
    }
}
