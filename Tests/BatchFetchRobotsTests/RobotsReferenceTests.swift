import BatchFetchRobots
import Testing

/// The matcher against a plain one written here from RFC 9309's words alone (normalise both sides,
/// glob with `*` and a final `$`, longest pattern wins, `Allow` on a tie, first line reported), on
/// seeded robots.txt files with many rules: the trie, the wildcard index and its signature filter
/// must never change a verdict.
struct RobotsReferenceTests {
    @Test func verdictsEqualAPlainMatchersOnManyRules() {
        var random = SplitMix64(seed: 9309)
        let pieces = [
            "/", "a", "b", "ab", "ba", ".php", "x", "%41", "%2f", "~", "?q=", "é", "-", "1", "12", "$", "%20", "|",
        ]
        func text(_ count: Int, _ star: Bool) -> String {
            (0..<count).map { _ in
                star && random.next() % 4 == 0 ? "*" : pieces[Int(random.next() % UInt64(pieces.count))]
            }.joined()
        }
        for _ in 0..<40 {
            var lines = ["User-agent: *"]
            for _ in 0..<(20 + Int(random.next() % 200)) {
                let kind = random.next() % 2 == 0 ? "Allow" : "Disallow"
                let anchor = random.next() % 5 == 0 ? "$" : ""
                lines.append("\(kind): /\(text(1 + Int(random.next() % 5), true))\(anchor)")
            }
            let matcher = RobotsTxt(lines.joined(separator: "\n")).matcher(for: RobotsAgent("a")!)
            let rules = lines.enumerated().dropFirst().map { offset, line in
                let parts = line.split(separator: " ", maxSplits: 1)
                return (
                    allow: parts[0] == "Allow:", pattern: Plain.normal(String(parts[1]), path: false), line: offset + 1
                )
            }
            for _ in 0..<60 {
                let raw = "/" + text(Int(random.next() % 7), false)
                let path = Plain.normal(raw, path: true)
                var best: (length: Int, allow: Bool, line: Int)? = nil
                for rule in rules where Plain.glob(rule.pattern[...], path[...]) {
                    let candidate = (length: rule.pattern.count, allow: rule.allow, line: rule.line)
                    if let current = best {
                        let wins =
                            candidate.length > current.length
                            || (candidate.length == current.length && candidate.allow && !current.allow)
                        if !wins {
                            continue
                        }
                    }
                    best = candidate
                }
                let verdict = matcher.verdict(forPath: raw)
                #expect(verdict.allowed == (best?.allow ?? true), "\(raw)")
                #expect(verdict.rule?.line == best?.line, "\(raw)")
            }
        }
    }
}

/// The plain matcher: slow and obvious.
enum Plain {
    /// RFC 9309 §2.2.2's normal form (with what a URI cannot hold escaped); in a path `*` and `$` are
    /// escaped, in a pattern only a `$` that does not end it.
    static func normal(_ text: String, path: Bool) -> [UInt8] {
        let octets = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        func escape(_ octet: UInt8) {
            out += Array("%".utf8) + Array(String(octet, radix: 16, uppercase: true).leftPadded.utf8)
        }
        while index < octets.count {
            let octet = octets[index]
            if octet == UInt8(ascii: "%"), index + 2 < octets.count,
                let value = UInt8(String(decoding: octets[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                if unreserved.contains(value) { out.append(value) } else { escape(value) }
                index += 3
                continue
            }
            let special =
                octet >= 0x80 || octet == UInt8(ascii: "%") || octet <= 0x20 || "\u{7F}\"<>\\^`{|}".utf8.contains(octet)
                || (path
                    ? octet == UInt8(ascii: "*") || octet == UInt8(ascii: "$")
                    : octet == UInt8(ascii: "$") && index + 1 < octets.count)
            if special { escape(octet) } else { out.append(octet) }
            index += 1
        }
        return out
    }

    /// Whether the pattern matches from the path's start.
    static func glob(_ pattern: ArraySlice<UInt8>, _ path: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else {
            return true
        }
        if first == UInt8(ascii: "$") && pattern.count == 1 {
            return path.isEmpty
        }
        if first == UInt8(ascii: "*") {
            return path.indices.contains { self.glob(pattern.dropFirst(), path[$0...]) }
                || self.glob(pattern.dropFirst(), path[path.endIndex...])
        }
        return path.first == first && self.glob(pattern.dropFirst(), path.dropFirst())
    }
}

extension String {
    fileprivate var leftPadded: String { self.count == 1 ? "0" + self : self }
}
