/// A delay added before every response: a base plus a uniform jitter, in milliseconds.
///
/// Written on the command line as `MS`, `MS±JITTER` or `MS+-JITTER` (e.g. `--latency 20±5`).
/// The jitter of each response is drawn from the fault generator, so it is reproducible too.
public struct ReplicaLatency: Sendable, Hashable, CustomStringConvertible {
    /// The base delay in milliseconds.
    public var milliseconds: Int
    /// The largest deviation from the base, in milliseconds; each response is delayed by a value
    /// drawn uniformly from `milliseconds - jitter ... milliseconds + jitter`, never below zero.
    public var jitter: Int

    /// Creates a latency; negative values count as zero.
    public init(milliseconds: Int, jitter: Int = 0) {
        self.milliseconds = max(0, milliseconds)
        self.jitter = max(0, jitter)
    }

    /// Parses `MS`, `MS±JITTER` or `MS+-JITTER`; `nil` when the text is not of that form.
    public init?(parsing text: String) {
        let parts = text.trimmingSpaces().replacing("+-", with: "±")
            .split(separator: "±", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let base = Int(parts[0].trimmingSpaces()), base >= 0 else {
            return nil
        }
        var jitter = 0
        if parts.count == 2 {
            guard let value = Int(parts[1].trimmingSpaces()), value >= 0 else {
                return nil
            }
            jitter = value
        }
        self.init(milliseconds: base, jitter: jitter)
    }

    /// `MS±JITTER`, or `MS` without jitter.
    public var description: String {
        self.jitter == 0 ? "\(self.milliseconds)" : "\(self.milliseconds)±\(self.jitter)"
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
