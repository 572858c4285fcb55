/// The rules that apply to one agent, compiled so that a verdict costs about one step per run of
/// octets of the path, whatever the number of rules.
///
/// Patterns without `*` sit in a trie keyed by their octets, whose runs of single children are
/// folded into one edge labelled with the run (a radix tree), so that the walk compares runs of
/// octets rather than stepping node by node: walking the path down finds every literal pattern
/// that is a prefix of it, longest last, and the `$`-anchored ones that end where the path ends.
/// Patterns with `*` are a RobotsWildcardSet, asked only for matches that could beat the trie's.
final class RobotsRuleIndex: Sendable {
    /// The rules, by the index the trie and the wildcard patterns refer to.
    let rules: [RobotsRule]
    private let ruleIsAllow: [Bool]
    private let nodes: [Node]
    /// The first octet of each node's edges, sorted, from `Node.childStart`.
    private let edgeOctets: [UInt8]
    private let edges: [Edge]
    /// The octets each edge stands for, its first included, by `Edge.labelStart`.
    private let labels: [UInt8]
    /// 256-entry tables of edge indices, for the nodes with many edges.
    private let tables: [Int32]
    private let wildcards: RobotsWildcardSet

    struct Node {
        var childStart: Int32 = 0
        var childCount: Int32 = 0
        var table: Int32 = -1
        /// The rule whose pattern is the path to this node (no `$`), or -1.
        var prefixRule: Int32 = -1
        /// The rule whose pattern is the path to this node followed by `$`, or -1.
        var exactRule: Int32 = -1
    }

    struct Edge {
        let target: Int32
        let labelStart: Int32
        let labelCount: Int32
    }

    /// The best match of each kind: priority 0 means none.
    struct Best {
        var allow: Int32 = -1
        var allowPriority: Int32 = 0
        var disallow: Int32 = -1
        var disallowPriority: Int32 = 0

        /// Keeps a match if it is longer than the best of its kind so far; among equally long matches
        /// of one kind, the first line is the one reported (as Google's matcher reports it), and rules
        /// are numbered in file order.
        @inline(__always)
        mutating func consider(_ rule: Int32, priority: Int32, isAllow: Bool) {
            if isAllow {
                if priority > self.allowPriority || (priority == self.allowPriority && rule < self.allow) {
                    self.allow = rule
                    self.allowPriority = priority
                }
            } else if priority > self.disallowPriority || (priority == self.disallowPriority && rule < self.disallow) {
                self.disallow = rule
                self.disallowPriority = priority
            }
        }
    }

    init(rules parsed: [RobotsTxt.Rule]) {
        var builder = Builder()
        var wildcards: [(pattern: [UInt8], rule: Int32)] = []
        var rules: [RobotsRule] = []
        for entry in parsed where !entry.pattern.isEmpty {
            let index = Int32(rules.count)
            rules.append(entry.rule)
            var patterns = [entry.pattern]
            // Google's matcher reads `Allow: …/index.htm(l)` as also allowing the directory itself.
            if entry.rule.kind == .allow, let slash = entry.pattern.lastIndex(of: UInt8(ascii: "/")),
                entry.pattern[slash...].starts(with: Self.indexHTM)
            {
                patterns.append(entry.pattern[...slash] + [UInt8(ascii: "$")])
            }
            for pattern in patterns {
                if pattern.contains(UInt8(ascii: "*")) {
                    wildcards.append((pattern, index))
                } else {
                    builder.add(pattern, rule: index, isAllow: entry.rule.kind == .allow)
                }
            }
        }
        self.rules = rules
        self.ruleIsAllow = rules.map { $0.kind == .allow }
        let flat = builder.flatten()
        self.nodes = flat.nodes
        self.edgeOctets = flat.edgeOctets
        self.edges = flat.edges
        self.labels = flat.labels
        self.tables = flat.tables
        self.wildcards = RobotsWildcardSet(wildcards)
    }

    private static let indexHTM: [UInt8] = Array("/index.htm".utf8)

    /// The longest allowing and disallowing matches for a path in normal form.
    func bestMatches(_ path: UnsafeBufferPointer<UInt8>) -> Best {
        var best = Best()
        if self.rules.isEmpty {
            return best
        }
        self.nodes.withUnsafeBufferPointer { nodes in
            self.labels.withUnsafeBufferPointer { labels in
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
                    guard depth < path.count, let edge = self.edge(of: current, path[depth]) else {
                        break
                    }
                    let count = Int(edge.labelCount)
                    guard path.count - depth >= count,
                        memoryEqual(labels.baseAddress! + Int(edge.labelStart), path.baseAddress! + depth, count)
                    else {
                        break
                    }
                    node = Int(edge.target)
                    depth += count
                }
            }
        }
        self.ruleIsAllow.withUnsafeBufferPointer { allows in
            self.wildcards.match(path, into: &best, allows: allows)
        }
        return best
    }

    @inline(__always)
    private func edge(of node: Node, _ octet: UInt8) -> Edge? {
        if node.table >= 0 {
            let index = self.tables[Int(node.table) * 256 + Int(octet)]
            return index >= 0 ? self.edges[Int(index)] : nil
        }
        var index = Int(node.childStart)
        let end = index + Int(node.childCount)
        while index < end {
            if self.edgeOctets[index] == octet {
                return self.edges[index]
            }
            index += 1
        }
        return nil
    }

    @inline(__always)
    private func consider(_ rule: Int32, priority: Int32, _ best: inout Best) {
        best.consider(rule, priority: priority, isAllow: self.ruleIsAllow[Int(rule)])
    }
}

/// Whether `count` octets at two addresses are equal; the first already matched, and runs are short.
@inline(__always)
private func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 1
    while index + 8 <= count {
        if UnsafeRawPointer(a + index).loadUnaligned(as: UInt64.self)
            != UnsafeRawPointer(b + index).loadUnaligned(as: UInt64.self)
        {
            return false
        }
        index += 8
    }
    while index < count {
        if a[index] != b[index] {
            return false
        }
        index += 1
    }
    return true
}
