import BatchFetch

/// What `merge` found: how many records it wrote, which are missing, and for each shard that
/// did not deliver, why and the command that runs it again.
public struct MergeReport: Sendable {
    /// The split the shards' stats describe.
    public struct Split: Sendable, Hashable {
        /// N.
        public var count: Int
        /// URL lines of the input: records are numbered `0..<inputLines`. `nil` when no shard's
        /// run completed (an interrupted run knows only the lines it read).
        public var inputLines: Int?
        /// The `-i` path the shards read, as given.
        public var input: String?
        /// The input's ``InputDigest`` (`nil` as ``inputLines`` is).
        public var inputDigest: String?
    }

    /// A shard whose records are not all there.
    public struct Shortfall: Sendable, Hashable {
        /// K.
        public var index: Int
        /// Why, for a person.
        public var reason: String
        /// A shell command line that runs the shard again.
        public var command: String
    }

    /// Records files merged.
    public var files = 0
    /// Records written.
    public var records = 0
    /// Indices not found: gaps below the highest index, and above it when ``split`` is known.
    public var missing = 0
    /// The first gaps.
    public var gaps: [ClosedRange<Int>] = []
    /// Records left out because an identical one (`time_ms` and `attempts` aside) came first.
    public var duplicates = 0
    /// The highest index written.
    public var lastIndex: Int?
    /// The split, when stats files say it; `nil` when only indices could be checked.
    public var split: Split?
    /// Records files read without stats: their split and shard are not checked.
    public var unverified: [String] = []
    /// Records files named but not there.
    public var absent: [String] = []
    /// Records files written in completion order, sorted before merging.
    public var sorted: [String] = []
    /// Records files ending in a record cut off by a killed writer (left out), with its index
    /// when it could be read.
    public var cutOff: [String: Int?] = [:]
    /// Shards not delivered in full, in shard order.
    public var shortfalls: [Shortfall] = []

    /// Whether every record is there: no index missing, no shard short, and, when the input's
    /// size is unknown, no sign of a lost record (a cut-off last record, a records file not there).
    public var isComplete: Bool {
        self.missing == 0 && self.shortfalls.isEmpty
            && (self.split?.inputLines != nil || (self.cutOff.isEmpty && self.absent.isEmpty))
    }
}
