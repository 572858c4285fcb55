/// The rules that apply to one agent, compiled so that a verdict costs about one step per octet of
/// the path, whatever the number of rules.
///
/// Patterns without `*` sit in a trie keyed by their octets: walking the path down the trie finds
/// every literal pattern that is a prefix of it, longest last, and the `$`-anchored ones that end
/// where the path ends. A pattern with `*` hangs from the trie node of its literal head (the octets
/// before the first `*`), with its other pieces (split at each `*`) kept for a leftmost search; only
/// those whose head the path walks through, and whose length could still beat the best match so
/// far, are tried.
final class RobotsRuleIndex: Sendable {
    /// The rules, by the index the trie and the wildcard patterns refer to.
    let rules: [RobotsRule]
    private let ruleIsAllow: [Bool]
    private let nodes: [Node]
    /// The bytes of each node's children, sorted, from `Node.childStart`.
    private let edgeOctets: [UInt8]
    private let edgeTargets: [Int32]
    /// 256-entry child tables of the nodes with many children.
    private let tables: [Int32]
    private let wildcards: [Wildcard]
    /// The pieces of the wildcard patterns after their head, by `Wildcard.pieceStart`.
    private let pieceBounds: [Range<Int>]
    private let pieceOctets: [UInt8]

    struct Node {
        var childStart: Int32 = 0
        var childCount: Int32 = 0
        var table: Int32 = -1
        /// The rule whose pattern is the path to this node (no `$`), or -1.
        var prefixRule: Int32 = -1
        /// The rule whose pattern is the path to this node followed by `$`, or -1.
        var exactRule: Int32 = -1
        var wildcardStart: Int32 = 0
        var wildcardCount: Int32 = 0
    }

    struct Wildcard {
        let rule: Int32
        let priority: Int32
        let anchored: Bool
        /// The length of the head, which the trie has matched.
        let headLength: Int32
        let pieceStart: Int32
        let pieceCount: Int32
    }

    /// The best match of each kind: priority 0 means none.
    struct Best {
        var allow: Int32 = -1
        var allowPriority: Int32 = 0
        var disallow: Int32 = -1
        var disallowPriority: Int32 = 0
    }

    init(rules parsed: [RobotsTxt.Rule]) {
        var builder = Builder()
        var rules: [RobotsRule] = []
        for entry in parsed where !entry.pattern.isEmpty {
            let index = Int32(rules.count)
            rules.append(entry.rule)
            builder.add(entry.pattern, rule: index, isAllow: entry.rule.kind == .allow, line: entry.rule.line)
            // Google's matcher reads `Allow: …/index.htm(l)` as also allowing the directory itself.
            if entry.rule.kind == .allow, let slash = entry.pattern.lastIndex(of: UInt8(ascii: "/")),
                entry.pattern[slash...].starts(with: Self.indexHTM)
            {
                builder.add(
                    entry.pattern[...slash] + [UInt8(ascii: "$")], rule: index, isAllow: true, line: entry.rule.line)
            }
        }
        self.rules = rules
        self.ruleIsAllow = rules.map { $0.kind == .allow }
        let flat = builder.flatten()
        self.nodes = flat.nodes
        self.edgeOctets = flat.edgeOctets
        self.edgeTargets = flat.edgeTargets
        self.tables = flat.tables
        self.wildcards = flat.wildcards
        self.pieceBounds = builder.pieceBounds
        self.pieceOctets = builder.pieceOctets
    }

    private static let indexHTM: [UInt8] = Array("/index.htm".utf8)

    /// The longest allowing and disallowing matches for a path in normal form.
    func bestMatches(_ path: UnsafeBufferPointer<UInt8>) -> Best {
        var best = Best()
        if self.rules.isEmpty {
            return best
        }
        self.nodes.withUnsafeBufferPointer { nodes in
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: path.count + 1) { visited in
                var visitedCount = 0
                var node = 0
                var depth = 0
                while true {
                    let current = nodes[node]
                    if current.prefixRule >= 0 {
                        self.consider(current.prefixRule, priority: Int32(depth), &best)
                    }
                    if depth == path.count && current.exactRule >= 0 {
                        self.consider(current.exactRule, priority: Int32(depth + 1), &best)
                    }
                    if current.wildcardCount > 0 {
                        visited[visitedCount] = Int32(node)
                        visitedCount += 1
                    }
                    guard depth < path.count, let child = self.child(of: current, path[depth]) else {
                        break
                    }
                    node = Int(child)
                    depth += 1
                }
                // Deepest heads first: their patterns tend to be the longest.
                while visitedCount > 0 {
                    visitedCount -= 1
                    let current = nodes[Int(visited[visitedCount])]
                    for index in Int(current.wildcardStart)..<Int(current.wildcardStart + current.wildcardCount) {
                        let wildcard = self.wildcards[index]
                        // Sorted by priority, longest first: the rest cannot win.
                        if wildcard.priority < max(best.allowPriority, best.disallowPriority) {
                            break
                        }
                        if self.matches(wildcard, path, from: Int(wildcard.headLength)) {
                            self.consider(wildcard.rule, priority: wildcard.priority, &best)
                        }
                    }
                }
            }
        }
        return best
    }

    @inline(__always)
    private func child(of node: Node, _ octet: UInt8) -> Int32? {
        if node.table >= 0 {
            let target = self.tables[Int(node.table) * 256 + Int(octet)]
            return target >= 0 ? target : nil
        }
        var index = Int(node.childStart)
        let end = index + Int(node.childCount)
        while index < end {
            if self.edgeOctets[index] == octet {
                return self.edgeTargets[index]
            }
            index += 1
        }
        return nil
    }

    @inline(__always)
    private func consider(_ rule: Int32, priority: Int32, _ best: inout Best) {
        // Among equally long matches of one kind, the first line is the one reported (as Google's
        // matcher reports it).
        if self.ruleIsAllow[Int(rule)] {
            if priority > best.allowPriority || (priority == best.allowPriority && rule < best.allow) {
                best.allow = rule
                best.allowPriority = priority
            }
        } else if priority > best.disallowPriority || (priority == best.disallowPriority && rule < best.disallow) {
            best.disallow = rule
            best.disallowPriority = priority
        }
    }

    /// Whether the pieces of a wildcard pattern after its head occur in order in the path from
    /// `start`, the last one at the very end if the pattern ends in `$`. Leftmost-first search is
    /// exact for patterns whose only operator is `*`.
    private func matches(_ wildcard: Wildcard, _ path: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var position = start
        let first = Int(wildcard.pieceStart)
        let last = first + Int(wildcard.pieceCount) - 1
        return self.pieceOctets.withUnsafeBufferPointer { octets in
            for piece in first..<last {
                let bounds = self.pieceBounds[piece]
                if bounds.isEmpty {
                    continue
                }
                guard let found = Self.find(UnsafeBufferPointer(rebasing: octets[bounds]), in: path, from: position)
                else {
                    return false
                }
                position = found + bounds.count
            }
            let bounds = self.pieceBounds[last]
            let tail = UnsafeBufferPointer(rebasing: octets[bounds])
            if wildcard.anchored {
                return path.count - position >= tail.count
                    && UnsafeBufferPointer(rebasing: path[(path.count - tail.count)...]).elementsEqual(tail)
            }
            return tail.isEmpty || Self.find(tail, in: path, from: position) != nil
        }
    }

    private static func find(
        _ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int
    )
        -> Int?
    {
        guard let head = needle.first, haystack.count - start >= needle.count else {
            return needle.isEmpty ? start : nil
        }
        var index = start
        let lastStart = haystack.count - needle.count
        while index <= lastStart {
            if haystack[index] == head {
                var offset = 1
                while offset < needle.count && haystack[index + offset] == needle[offset] {
                    offset += 1
                }
                if offset == needle.count {
                    return index
                }
            }
            index += 1
        }
        return nil
    }
}
