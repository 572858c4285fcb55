/// Reads robots.txt lines into groups, as RobotsTxt describes.
struct RobotsTxtParser {
    /// Google's matcher keeps 8 × 2,083 octets (eight times the longest URL browsers take) of a line,
    /// less one for its terminating NUL.
    static let maximumLineLength = 2083 * 8 - 1

    private(set) var groups: [RobotsTxt.Group] = []
    private(set) var sitemaps: [String] = []
    private(set) var lineCount = 0
    /// Whether the open group (the last in `groups`) has a rule, so that a `User-agent:` line
    /// opens the next one.
    private var groupHasRule = false
    private var groupIsOpen = false

    mutating func parse(_ body: UnsafeBufferPointer<UInt8>) {
        var start = 0
        // A byte order mark, or the part of one that the file starts with, is skipped.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        while start < bom.count, start < body.count, body[start] == bom[start] {
            start += 1
        }
        var lastWasCarriageReturn = false
        var index = start
        while index < body.count {
            let octet = body[index]
            if octet == 0x0A || octet == 0x0D {
                // The LF of a CRLF ends no second line.
                if !(index == start && lastWasCarriageReturn && octet == 0x0A) {
                    self.line(UnsafeBufferPointer(rebasing: body[start..<index]))
                }
                lastWasCarriageReturn = octet == 0x0D
                start = index + 1
            }
            index += 1
        }
        self.line(UnsafeBufferPointer(rebasing: body[start..<body.count]))
    }

    private mutating func line(_ raw: UnsafeBufferPointer<UInt8>) {
        self.lineCount += 1
        var line = ArraySlice(raw.prefix(Self.maximumLineLength))
        // Google's matcher reads a line as a C string: it ends at a NUL.
        if let nul = line.firstIndex(of: 0) {
            line = line[..<nul]
        }
        if let hash = line.firstIndex(of: UInt8(ascii: "#")) {
            line = line[..<hash]
        }
        line = Self.trimmed(line)
        guard let (key, value) = Self.keyAndValue(line), let kind = Key(key) else {
            return
        }
        let text = String(decoding: line, as: UTF8.self)
        switch kind {
        case .userAgent:
            if !self.groupIsOpen || self.groupHasRule {
                self.groups.append(RobotsTxt.Group(firstLine: self.lineCount))
                self.groupIsOpen = true
                self.groupHasRule = false
            }
            let isGlobal =
                value.first == UInt8(ascii: "*") && (value.count == 1 || Self.isSpace(value[value.startIndex + 1]))
            self.groups[self.groups.count - 1].agents.append(isGlobal ? nil : Array(value))
        case .allow, .disallow:
            guard self.groupIsOpen else {
                return
            }
            let rule = RobotsRule(kind: kind == .allow ? .allow : .disallow, text: text, line: self.lineCount)
            self.groups[self.groups.count - 1].rules.append(
                RobotsTxt.Rule(rule: rule, pattern: RobotsPercentEncoding.normalizePattern(value)))
            self.groupHasRule = true
        case .crawlDelay:
            if self.groupIsOpen, self.groups[self.groups.count - 1].crawlDelay == nil {
                self.groups[self.groups.count - 1].crawlDelay = Self.seconds(value)
            }
        case .sitemap:
            self.sitemaps.append(String(decoding: value, as: UTF8.self))
        }
    }

    /// Splits `key: value`; where the colon is missing, a run of spaces between exactly two words
    /// stands for it (Google's matcher accepts `Disallow /x`).
    private static func keyAndValue(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, ArraySlice<UInt8>)? {
        guard !line.isEmpty else {
            return nil
        }
        var separator = line.firstIndex(of: UInt8(ascii: ":"))
        if separator == nil {
            guard let blank = line.firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) else {
                return nil
            }
            let rest = Self.trimmed(line[blank...])
            guard !rest.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
                return nil
            }
            separator = blank
        }
        guard let separator else {
            return nil
        }
        let key = Self.trimmed(line[..<separator])
        guard !key.isEmpty else {
            return nil
        }
        return (key, Self.trimmed(line[(separator + 1)...]))
    }

    /// A `Crawl-delay:` value: a non-negative decimal number of seconds; anything else is ignored.
    static func seconds(_ value: ArraySlice<UInt8>) -> Double? {
        var digits = 0
        var dots = 0
        for octet in value {
            if octet == UInt8(ascii: ".") {
                dots += 1
            } else if octet >= UInt8(ascii: "0") && octet <= UInt8(ascii: "9") {
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1, let seconds = Double(String(decoding: value, as: UTF8.self)) else {
            return nil
        }
        return seconds.isFinite ? seconds : nil
    }

    static func isSpace(_ octet: UInt8) -> Bool {
        octet == 0x20 || (octet >= 0x09 && octet <= 0x0D)
    }

    static func trimmed(_ slice: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = slice
        while let first = slice.first, Self.isSpace(first) {
            slice = slice.dropFirst()
        }
        while let last = slice.last, Self.isSpace(last) {
            slice = slice.dropLast()
        }
        return slice
    }

    /// The keys read, each by the prefix that Google's matcher tests, misspellings included.
    enum Key {
        case userAgent, allow, disallow, sitemap, crawlDelay

        private static let prefixes: [(String, Key)] = [
            ("user-agent", .userAgent), ("useragent", .userAgent), ("user agent", .userAgent),
            ("allow", .allow),
            ("disallow", .disallow), ("dissallow", .disallow), ("dissalow", .disallow), ("disalow", .disallow),
            ("diasllow", .disallow), ("disallaw", .disallow),
            ("sitemap", .sitemap), ("site-map", .sitemap),
            ("crawl-delay", .crawlDelay), ("crawldelay", .crawlDelay), ("crawl delay", .crawlDelay),
        ]

        init?(_ key: ArraySlice<UInt8>) {
            for (prefix, kind) in Self.prefixes where Self.hasPrefix(key, prefix) {
                self = kind
                return
            }
            return nil
        }

        private static func hasPrefix(_ key: ArraySlice<UInt8>, _ prefix: String) -> Bool {
            guard key.count >= prefix.utf8.count else {
                return false
            }
            return zip(key, prefix.utf8).allSatisfy { RobotsAgent.lowercased($0) == $1 }
        }
    }
}
