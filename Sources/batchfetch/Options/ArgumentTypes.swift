import ArgumentParser
import BatchFetch
import CocktailDB

extension CrawlFormat: ExpressibleByArgument {}

extension Facet: ExpressibleByArgument {}

/// Record order.
enum RecordOrder: String, CaseIterable, ExpressibleByArgument {
    case input, completion
}

extension RecordWriter.BodyMode: ExpressibleByArgument {}

/// `--shard K/N`.
struct Shard: ExpressibleByArgument, Sendable {
    let index: Int
    let count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (0..<count).contains(index)
        else {
            return nil
        }
        self.index = index
        self.count = count
    }

    /// Whether the line with this hash (``InputDigest/hash(_:)``, FNV-1a 64-bit of its bytes)
    /// belongs to this shard: the hash modulo N, so every machine splits a list the same way
    /// whatever order it reads it in.
    func contains(hash: UInt64) -> Bool {
        Int(hash % UInt64(self.count)) == self.index
    }
}
