import BatchFetch

/// Why `merge` could not produce a trustworthy result: the shards do not belong together, a file
/// cannot be read or is not batchfetch records, or the output cannot be written.
///
/// Missing records are not errors (they are what a ``MergeReport`` says); these are.
public struct MergeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable category.
    public enum Kind: String, Sendable, Hashable {
        /// A records or stats file cannot be opened or read, or a temporary file cannot be made.
        case unreadable
        /// A line is not a batchfetch record (it does not start with `{"index":N,`).
        case notARecord
        /// The shards come from different splits (another N, another input) or a record's index
        /// lies outside the input.
        case mixedSplits
        /// One index has two records that differ beyond `time_ms` and `attempts`.
        case conflictingDuplicates
        /// A file its stats say is in index order is not, or its stats do not describe it.
        case statsMismatch
        /// The output cannot be written (disk full, no permission).
        case unwritable
        /// The output is a pipe whose reader went away (as with `| head`).
        case brokenPipe
    }

    /// The category.
    public let kind: Kind
    /// What happened and, where it helps, what to do.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { self.message }
}
