extension RobotsRuleIndex {
    /// Builds the trie and the wildcard lists, then lays them out flat.
    struct Builder {
        private var children: [[UInt8: Int32]] = [[:]]
        private var prefixRule: [Int32] = [-1]
        private var exactRule: [Int32] = [-1]
        private var ruleIsAllow: [Int32: Bool] = [:]
        private var wildcardsByNode: [Int32: [Wildcard]] = [:]
        private(set) var pieceBounds: [Range<Int>] = []
        private(set) var pieceOctets: [UInt8] = []

        /// Adds a pattern in normal form (non-empty) for a rule; rules come in file order.
        mutating func add(_ pattern: some Collection<UInt8>, rule: Int32, isAllow: Bool, line: Int) {
            let pattern = Array(pattern)
            self.ruleIsAllow[rule] = isAllow
            let anchored = pattern.last == UInt8(ascii: "$")
            let body = anchored ? pattern.dropLast() : pattern[...]
            guard let star = body.firstIndex(of: UInt8(ascii: "*")) else {
                let node = Int(self.insert(body))
                if anchored {
                    self.exactRule[node] = self.preferred(self.exactRule[node], rule)
                } else {
                    self.prefixRule[node] = self.preferred(self.prefixRule[node], rule)
                }
                return
            }
            let node = self.insert(body[..<star])
            let pieces = body[(star + 1)...].split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            let pieceStart = Int32(self.pieceBounds.count)
            for piece in pieces {
                self.pieceBounds.append(self.pieceOctets.count..<(self.pieceOctets.count + piece.count))
                self.pieceOctets.append(contentsOf: piece)
            }
            self.wildcardsByNode[node, default: []].append(
                Wildcard(
                    rule: rule,
                    priority: Int32(pattern.count),
                    anchored: anchored,
                    headLength: Int32(star - body.startIndex),
                    pieceStart: pieceStart,
                    pieceCount: Int32(pieces.count)
                ))
        }

        /// Of two rules with the same pattern, `Allow` wins, then the earlier line.
        private func preferred(_ existing: Int32, _ rule: Int32) -> Int32 {
            guard existing >= 0 else {
                return rule
            }
            let existingIsAllow = self.ruleIsAllow[existing] ?? false
            let ruleIsAllow = self.ruleIsAllow[rule] ?? false
            if existingIsAllow != ruleIsAllow {
                return ruleIsAllow ? rule : existing
            }
            return min(existing, rule)
        }

        private mutating func insert(_ octets: ArraySlice<UInt8>) -> Int32 {
            var node: Int32 = 0
            for octet in octets {
                if let next = self.children[Int(node)][octet] {
                    node = next
                    continue
                }
                let next = Int32(self.children.count)
                self.children.append([:])
                self.prefixRule.append(-1)
                self.exactRule.append(-1)
                self.children[Int(node)][octet] = next
                node = next
            }
            return node
        }

        struct Flat {
            var nodes: [Node] = []
            var edgeOctets: [UInt8] = []
            var edgeTargets: [Int32] = []
            var tables: [Int32] = []
            var wildcards: [Wildcard] = []
        }

        /// Nodes with more children than this get a 256-entry table instead of a list to scan.
        private static let tableThreshold = 8

        func flatten() -> Flat {
            var flat = Flat()
            flat.nodes.reserveCapacity(self.children.count)
            for index in self.children.indices {
                var node = Node()
                let children = self.children[index].sorted { $0.key < $1.key }
                node.childStart = Int32(flat.edgeOctets.count)
                node.childCount = Int32(children.count)
                flat.edgeOctets.append(contentsOf: children.map(\.key))
                flat.edgeTargets.append(contentsOf: children.map(\.value))
                if children.count > Self.tableThreshold {
                    node.table = Int32(flat.tables.count / 256)
                    var table = [Int32](repeating: -1, count: 256)
                    for (octet, target) in children {
                        table[Int(octet)] = target
                    }
                    flat.tables.append(contentsOf: table)
                }
                node.prefixRule = self.prefixRule[index]
                node.exactRule = self.exactRule[index]
                let wildcards = (self.wildcardsByNode[Int32(index)] ?? []).sorted {
                    ($0.priority, -$0.rule) > ($1.priority, -$1.rule)
                }
                node.wildcardStart = Int32(flat.wildcards.count)
                node.wildcardCount = Int32(wildcards.count)
                flat.wildcards.append(contentsOf: wildcards)
                flat.nodes.append(node)
            }
            return flat
        }
    }
}
