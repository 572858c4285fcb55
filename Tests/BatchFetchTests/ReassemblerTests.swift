import TestSupport
import Testing

@testable import BatchFetch

struct ReassemblerTests {
    @Test func completionsArrivingOutOfOrderAreEmittedInInputOrder() throws {
        var reassembler = Reassembler<String>(window: 4)
        try reassembler.insert("c", at: 2)
        try reassembler.insert("b", at: 1)
        #expect(reassembler.drainReady() == [])
        try reassembler.insert("a", at: 0)
        #expect(reassembler.drainReady() == ["a", "b", "c"])
        #expect(reassembler.next == 3 && reassembler.pending == 0)
    }

    @Test func theWindowBoundsHowFarAheadAProducerMayRun() throws {
        var reassembler = Reassembler<Int>(window: 3)
        #expect(reassembler.limit == 3)
        #expect(throws: Reassembler<Int>.InsertError.outsideWindow(3)) { try reassembler.insert(3, at: 3) }
        try reassembler.insert(1, at: 1)
        try reassembler.insert(2, at: 2)
        #expect(throws: Reassembler<Int>.InsertError.outsideWindow(3)) { try reassembler.insert(3, at: 3) }
        try reassembler.insert(0, at: 0)
        #expect(reassembler.drainReady() == [0, 1, 2])
        #expect(reassembler.limit == 6)
        try reassembler.insert(5, at: 5)
        #expect(throws: Reassembler<Int>.InsertError.duplicate(1)) { try reassembler.insert(1, at: 1) }
        try reassembler.insert(4, at: 4)
        #expect(throws: Reassembler<Int>.InsertError.duplicate(4)) { try reassembler.insert(4, at: 4) }
    }

    /// Random permutations within the window, gaps that fill late, failures (as values) in the
    /// middle: the output is always the input, in order, each exactly once.
    @Test func randomArrivalOrdersAlwaysComeOutInOrder() throws {
        var generator = SeededGenerator(seed: 99)
        for trial in 0..<300 {
            let count = Int.random(in: 1...400, using: &generator)
            let window = Int.random(in: 1...64, using: &generator)
            var reassembler = Reassembler<Result<Int, FetchError>>(window: window)
            var produced = 0
            var inFlight: [Int] = []
            var output: [Result<Int, FetchError>] = []
            while output.count < count {
                // Produce while the window allows, then complete a random in-flight index.
                while produced < count && produced < reassembler.limit && Int.random(in: 0..<3, using: &generator) > 0 {
                    inFlight.append(produced)
                    produced += 1
                }
                if inFlight.isEmpty {
                    if produced < reassembler.limit && produced < count {
                        inFlight.append(produced)
                        produced += 1
                    }
                    continue
                }
                let index = inFlight.remove(at: Int.random(in: 0..<inFlight.count, using: &generator))
                let value: Result<Int, FetchError> =
                    index % 17 == 5 ? .failure(FetchError(kind: .timeout, message: "\(index)")) : .success(index)
                try reassembler.insert(value, at: index)
                output += reassembler.drainReady()
            }
            let indices = output.map { result -> Int in
                switch result {
                case .success(let index): index
                case .failure(let error): Int(error.message) ?? -1
                }
            }
            #expect(indices == Array(0..<count), "trial \(trial)")
            #expect(reassembler.pending == 0)
        }
    }
}

extension Reassembler {
    /// Takes every value whose prefix is complete, in index order, as the engine's consumer does
    /// (``popNext()`` until it has none).
    fileprivate mutating func drainReady() -> [Value] {
        var ready: [Value] = []
        while let value = self.popNext() {
            ready.append(value)
        }
        return ready
    }
}
