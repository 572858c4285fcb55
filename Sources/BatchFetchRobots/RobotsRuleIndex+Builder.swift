extension RobotsRuleIndex {
    /// Builds the trie of the patterns without `*`, then lays it out flat.
    struct Builder {
        /// Each node's children as (octet, node) pairs: most nodes have one, so a list beats a dictionary.
        private var children: [[(octet: UInt8, node: Int32)]] = [[]]
        private var prefixRule: [Int32] = [-1]
        private var exactRule: [Int32] = [-1]
        private var ruleIsAllow: [Int32: Bool] = [:]

        /// Adds a pattern in normal form without `*` (non-empty) for a rule; rules come in file order.
        mutating func add(_ pattern: [UInt8], rule: Int32, isAllow: Bool) {
            self.ruleIsAllow[rule] = isAllow
            let anchored = pattern.last == UInt8(ascii: "$")
            let node = Int(self.insert(anchored ? pattern.dropLast() : pattern[...]))
            if anchored {
                self.exactRule[node] = self.preferred(self.exactRule[node], rule)
            } else {
                self.prefixRule[node] = self.preferred(self.prefixRule[node], rule)
            }
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
                if let next = self.children[Int(node)].first(where: { $0.octet == octet })?.node {
                    node = next
                    continue
                }
                let next = Int32(self.children.count)
                self.children.append([])
                self.prefixRule.append(-1)
                self.exactRule.append(-1)
                self.children[Int(node)].append((octet, next))
                node = next
            }
            return node
        }

        struct Flat {
            var nodes: [Node] = []
            var edgeOctets: [UInt8] = []
            var edges: [Edge] = []
            var labels: [UInt8] = []
            var tables: [Int32] = []
        }

        /// Nodes with more edges than this get a 256-entry table instead of a list to scan.
        private static let tableThreshold = 8

        /// Whether the walk must stop at a node: it ends a pattern, or branches.
        private func isStop(_ node: Int) -> Bool {
            self.children[node].count != 1 || self.prefixRule[node] >= 0 || self.exactRule[node] >= 0
        }

        /// Lays the trie out flat, folding each run of nodes that are no stop into its edge's label.
        func flatten() -> Flat {
            var flat = Flat()
            var index: [Int: Int32] = [0: 0]
            var order = [0]
            var position = 0
            // Breadth first; a node's number is its place in `order`.
            while position < order.count {
                let source = order[position]
                position += 1
                var node = Node()
                var outgoing: [(octet: UInt8, edge: Edge)] = []
                for (octet, first) in self.children[source].sorted(by: { $0.octet < $1.octet }) {
                    var label = [octet]
                    var target = Int(first)
                    while !self.isStop(target), let (next, child) = self.children[target].first {
                        label.append(next)
                        target = Int(child)
                    }
                    if index[target] == nil {
                        index[target] = Int32(order.count)
                        order.append(target)
                    }
                    outgoing.append(
                        (
                            octet,
                            Edge(
                                target: index[target]!, labelStart: Int32(flat.labels.count),
                                labelCount: Int32(label.count))
                        ))
                    flat.labels.append(contentsOf: label)
                }
                node.childStart = Int32(flat.edges.count)
                node.childCount = Int32(outgoing.count)
                if outgoing.count > Self.tableThreshold {
                    node.table = Int32(flat.tables.count / 256)
                    var table = [Int32](repeating: -1, count: 256)
                    for (offset, entry) in outgoing.enumerated() {
                        table[Int(entry.octet)] = Int32(flat.edges.count + offset)
                    }
                    flat.tables.append(contentsOf: table)
                }
                flat.edgeOctets.append(contentsOf: outgoing.map(\.octet))
                flat.edges.append(contentsOf: outgoing.map(\.edge))
                node.prefixRule = self.prefixRule[source]
                node.exactRule = self.exactRule[source]
                flat.nodes.append(node)
            }
            return flat
        }
    }
}
