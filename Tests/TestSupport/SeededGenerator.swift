import CocktailReplica

/// A seeded generator, so randomised tests repeat exactly: the replica's SplitMix64, the one
/// implementation of the algorithm in the package (it is `package`, not public API).
package typealias SeededGenerator = SplitMix64

extension SeededGenerator {
    /// A number in `0..<bound`, by remainder: the draws DrinkRecordTests' random cases were made with.
    package mutating func next(_ bound: Int) -> Int {
        Int(self.next() % UInt64(bound))
    }
}
