import BatchFetch

/// What one `fetch --shard K/N` run was: the `shard` object of its `--stats` file, written by
/// `fetch` and read by `merge` to check that shard outputs belong together and to say how to
/// re-run one that is missing.
///
/// Two shards belong to one split when their ``count``, ``inputLines`` and ``inputDigest`` are
/// equal. The digest is cheap (a 64-bit FNV-1a fold, see ``InputDigest``): it tells a changed or
/// different URL list apart, not a forged one.
public struct ShardManifest: Codable, Sendable, Hashable {
    /// K: this shard's number, `0..<count`.
    public var index: Int
    /// N: how many shards the input was split into.
    public var count: Int
    /// The `-i` path as given (`-` for standard input); `nil` when the URLs were arguments only.
    public var input: String?
    /// URL lines in the whole input (every shard's; blank and comment lines are not counted).
    /// Records are numbered `0..<inputLines`.
    public var inputLines: Int
    /// ``InputDigest`` of every URL line of the input, in order, as 16 lower-case hex digits.
    public var inputDigest: String
    /// URL lines that fell in this shard.
    public var lines: Int
    /// Records written.
    public var records: Int
    /// `input` (records in index order) or `completion` (as they finished: `merge` sorts them).
    public var order: String
    /// Whether the run read all of its input and wrote every record (not interrupted, no write
    /// failure).
    public var complete: Bool
    /// The records file: `-o` as given, or the file standard output was redirected to (absolute);
    /// `nil` when records went to a pipe or a terminal.
    public var output: String?
    /// The working directory the command ran in (relative paths in ``command`` are from there).
    public var directory: String
    /// The command line, secrets replaced by `***` (see ``redacting(arguments:)``).
    public var command: [String]

    /// Creates a manifest.
    public init(
        index: Int, count: Int, input: String?, inputLines: Int, inputDigest: String, lines: Int, records: Int,
        order: String, complete: Bool, output: String?, directory: String, command: [String]
    ) {
        self.index = index
        self.count = count
        self.input = input
        self.inputLines = inputLines
        self.inputDigest = inputDigest
        self.lines = lines
        self.records = records
        self.order = order
        self.complete = complete
        self.output = output
        self.directory = directory
        self.command = command
    }

    /// Whether `other` is a shard of the same split of the same input.
    public func isSameSplit(as other: ShardManifest) -> Bool {
        self.count == other.count && self.inputLines == other.inputLines && self.inputDigest == other.inputDigest
    }

    /// A command line fit to store: the values of header options whose name suggests a credential
    /// (`Authorization`, `Cookie`, `…Token`, `…Key`, `…Secret`) become `Name: ***`, `-u/--user`'s
    /// credentials and `-b/--cookie`'s cookies (not its file names) `***`, and URL arguments lose
    /// their passwords and secret query values (as records' `url` does), so a stats file can be
    /// shared as freely as the records.
    public static func redacting(arguments: [String]) -> [String] {
        var result: [String] = []
        var headerNext = false
        var secretNext = false
        var cookieNext = false
        for argument in arguments {
            if headerNext {
                result.append(Self.redactedHeader(argument))
                headerNext = false
            } else if secretNext {
                result.append("***")
                secretNext = false
            } else if cookieNext {
                result.append(argument.contains("=") ? "***" : argument)
                cookieNext = false
            } else if argument == "-H" || argument == "--header" {
                result.append(argument)
                headerNext = true
            } else if argument == "-u" || argument == "--user" {
                result.append(argument)
                secretNext = true
            } else if argument == "-b" || argument == "--cookie" {
                result.append(argument)
                cookieNext = true
            } else if argument.hasPrefix("--user=") {
                result.append("--user=***")
            } else if argument.hasPrefix("-u") && !argument.hasPrefix("--") {
                result.append("-u***")
            } else if argument.hasPrefix("--cookie=") && argument.dropFirst("--cookie=".count).contains("=") {
                result.append("--cookie=***")
            } else if argument.hasPrefix("-b") && !argument.hasPrefix("--") && argument.contains("=") {
                result.append("-b***")
            } else if argument.hasPrefix("--header=") {
                result.append("--header=" + Self.redactedHeader(String(argument.dropFirst("--header=".count))))
            } else if argument.hasPrefix("-H") {
                result.append("-H" + Self.redactedHeader(String(argument.dropFirst(2))))
            } else if argument.contains("://") {
                result.append(argument.redactedURL)
            } else {
                result.append(argument)
            }
        }
        return result
    }

    private static func redactedHeader(_ field: String) -> String {
        guard let colon = field.firstIndex(of: ":") else {
            return field
        }
        let name = field[..<colon].lowercased()
        let sensitive = ["authorization", "cookie", "token", "key", "secret", "auth", "password", "session"]
        guard sensitive.contains(where: { name.contains($0) }) else {
            return field
        }
        return field[..<colon] + ": ***"
    }
}

/// A 64-bit digest of a URL list that `fetch --shard` computes for almost nothing: each URL
/// line's FNV-1a hash (which the shard choice computes anyway) is folded in order, with FNV's
/// multiply and then an xor-shift (a multiply alone never carries high bits down to low ones).
/// Equal lists give equal digests on every machine; a changed, added, removed or moved line
/// changes it, up to 64-bit collisions: it tells lists apart, it does not authenticate them.
public struct InputDigest: Sendable, Hashable {
    /// The digest so far.
    public private(set) var value: UInt64 = Self.offsetBasis

    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// An empty list's digest.
    public init() {}

    /// A digest as ``value`` gave it.
    public init(value: UInt64) {
        self.value = value
    }

    /// FNV-1a (64-bit) of a line's bytes: the hash `--shard` takes modulo N.
    public static func hash(_ line: String) -> UInt64 {
        Self.hash(bytes: line.utf8)
    }

    /// FNV-1a (64-bit) of `bytes` (a JSON request's `id`, which `--shard` takes instead of its line).
    public static func hash(bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = Self.offsetBasis
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* Self.prime
        }
        return hash
    }

    /// Folds in the next line's ``hash(_:)``.
    public mutating func add(lineHash: UInt64) {
        let mixed = (self.value ^ lineHash) &* Self.prime
        self.value = mixed ^ (mixed >> 29)
    }

    /// 16 lower-case hex digits.
    public var hex: String {
        let digits = String(self.value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
