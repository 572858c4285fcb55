/// Whether a URL may be fetched, and the rule that decided it.
public struct RobotsVerdict: Sendable, Hashable {
    /// Whether the URL may be fetched.
    public let allowed: Bool
    /// The rule that decided, or `nil` where no rule matched (or `/robots.txt`, always allowed).
    public let rule: RobotsRule?

    /// Creates a verdict.
    public init(allowed: Bool, rule: RobotsRule?) {
        self.allowed = allowed
        self.rule = rule
    }
}

/// An `Allow:` or `Disallow:` line of a robots.txt.
public struct RobotsRule: Sendable, Hashable, CustomStringConvertible {
    /// Which of the two a rule is.
    public enum Kind: Sendable, Hashable {
        /// An `Allow:` line.
        case allow
        /// A `Disallow:` line.
        case disallow
    }

    /// Allow or disallow.
    public let kind: Kind
    /// The line as written, without its comment and surrounding white space: `Disallow: /tmp/`.
    public let text: String
    /// The line's number in the file, from 1.
    public let line: Int

    /// Creates a rule.
    public init(kind: Kind, text: String, line: Int) {
        self.kind = kind
        self.text = text
        self.line = line
    }

    /// The rule as written and its line: `Disallow: /tmp/ (line 7)`.
    public var description: String { "\(self.text) (line \(self.line))" }
}
