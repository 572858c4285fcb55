/// The patterns with `*` of one agent's rules, indexed so that a path meets only the few that could
/// match it.
///
/// Each pattern is split at its `*`s into a head (which must start the path) and pieces (which
/// must occur in the path in order, the last at its end if the pattern ends in `$`). Every piece
/// must occur in the path as it is, so a pattern is filed under one pair of adjacent octets of one
/// of its pieces: a path is only checked against the patterns filed under the pairs it holds (and
/// the few patterns without any pair, whose pieces are single octets), after a signature test that
/// rules out most of those with a few AND operations. Leftmost-first search of the pieces is exact
/// for patterns whose only operator is `*`.
///
/// Its tables live in buffers it allocates once and frees in `deinit`, read through raw pointers on
/// the hot path (no closure, no bounds check, no retain per pattern tried); it never changes after
/// `init`, which is what makes sharing it between threads safe.
final class RobotsWildcardSet: @unchecked Sendable {
    struct Pattern {
        let rule: Int32
        let priority: Int32
        let anchored: Bool
        let headStart: Int32
        let headLength: Int32
        let pieceStart: Int32
        let pieceCount: Int32
    }

    /// Each pattern's priority and what its pieces need of a path, packed for the filter loop.
    struct Filter {
        let priority: Int32
        let required: OctetSignature
    }

    private let patterns: UnsafeMutableBufferPointer<Pattern>
    private let filters: UnsafeMutableBufferPointer<Filter>
    private let heads: UnsafeMutableBufferPointer<UInt8>
    /// Start and end of each piece in `pieceOctets`.
    private let pieceBounds: UnsafeMutableBufferPointer<(Int32, Int32)>
    private let pieceOctets: UnsafeMutableBufferPointer<UInt8>
    /// Pattern indices by pair bucket: bucket `b` holds `filed[bucketStarts[b]..<bucketStarts[b + 1]]`.
    private let bucketStarts: UnsafeMutableBufferPointer<Int32>
    private let filed: UnsafeMutableBufferPointer<Int32>
    /// The patterns without a pair to file them under, tried for every path.
    private let unfiled: UnsafeMutableBufferPointer<Int32>
    private let bucketMask: Int

    var isEmpty: Bool { self.patterns.isEmpty }

    /// Builds the set from patterns in normal form that hold a `*`, with their rules.
    init(_ entries: [(pattern: [UInt8], rule: Int32)]) {
        var patterns: [Pattern] = []
        var filters: [Filter] = []
        var heads: [UInt8] = []
        var pieceBounds: [(Int32, Int32)] = []
        var pieceOctets: [UInt8] = []
        var keys: [Int?] = []
        var useOfPair: [Int: Int] = [:]
        for (pattern, rule) in entries {
            let anchored = pattern.last == UInt8(ascii: "$")
            let body = anchored ? pattern.dropLast() : pattern[...]
            guard let star = body.firstIndex(of: UInt8(ascii: "*")) else {
                continue
            }
            let pieces = body[(star + 1)...].split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
            patterns.append(
                Pattern(
                    rule: rule, priority: Int32(pattern.count), anchored: anchored, headStart: Int32(heads.count),
                    headLength: Int32(star - body.startIndex), pieceStart: Int32(pieceBounds.count),
                    pieceCount: Int32(pieces.count)))
            filters.append(Filter(priority: Int32(pattern.count), required: OctetSignature(pieces: pieces)))
            heads.append(contentsOf: body[..<star])
            for piece in pieces {
                pieceBounds.append((Int32(pieceOctets.count), Int32(pieceOctets.count + piece.count)))
                pieceOctets.append(contentsOf: piece)
            }
            // The pair least used so far, the later one on a tie (endings tell patterns apart best).
            var key: Int?
            for piece in pieces where piece.count >= 2 {
                for index in piece.indices.dropLast() {
                    let pair = Int(piece[index]) << 8 | Int(piece[index + 1])
                    if key == nil || useOfPair[pair, default: 0] <= useOfPair[key!, default: 0] {
                        key = pair
                    }
                }
            }
            if let key {
                useOfPair[key, default: 0] += 1
            }
            keys.append(key)
        }
        var bucketCount = 16
        while bucketCount < keys.count * 2 {
            bucketCount *= 2
        }
        var buckets = [[Int32]](repeating: [], count: bucketCount)
        var unfiled: [Int32] = []
        for (index, key) in keys.enumerated() {
            if let key {
                buckets[Self.bucket(key >> 8, key & 0xFF, mask: bucketCount - 1)].append(Int32(index))
            } else {
                unfiled.append(Int32(index))
            }
        }
        var bucketStarts: [Int32] = []
        var filed: [Int32] = []
        for bucket in buckets {
            bucketStarts.append(Int32(filed.count))
            filed.append(contentsOf: bucket)
        }
        bucketStarts.append(Int32(filed.count))
        self.bucketMask = bucketCount - 1
        self.patterns = Self.copy(patterns)
        self.filters = Self.copy(filters)
        self.heads = Self.copy(heads)
        self.pieceBounds = Self.copy(pieceBounds)
        self.pieceOctets = Self.copy(pieceOctets)
        self.bucketStarts = Self.copy(bucketStarts)
        self.filed = Self.copy(filed)
        self.unfiled = Self.copy(unfiled)
    }

    deinit {
        self.patterns.deallocate()
        self.filters.deallocate()
        self.heads.deallocate()
        self.pieceBounds.deallocate()
        self.pieceOctets.deallocate()
        self.bucketStarts.deallocate()
        self.filed.deallocate()
        self.unfiled.deallocate()
    }

    private static func copy<Element>(_ array: [Element]) -> UnsafeMutableBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(array.count, 1))
        _ = buffer.initialize(from: array)
        return UnsafeMutableBufferPointer(rebasing: buffer[0..<array.count])
    }

    @inline(__always)
    private static func bucket(_ first: Int, _ second: Int, mask: Int) -> Int {
        Int(((UInt32(first) << 8 | UInt32(second)) &* 0x9E37_79B1) >> 16) & mask
    }

    /// Folds every pattern that matches `path` (in normal form) into `best`, skipping those whose
    /// priority cannot beat it.
    func match(
        _ path: UnsafeBufferPointer<UInt8>, into best: inout RobotsRuleIndex.Best, allows: UnsafeBufferPointer<Bool>
    ) {
        guard !self.patterns.isEmpty else {
            return
        }
        let present = OctetSignature(path)
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: (self.patterns.count + 63) / 64) { tried in
            tried.initialize(repeating: 0)
            for index in self.unfiled {
                self.offer(Int(index), path, present, tried, &best, allows)
            }
            var position = 0
            while position + 1 < path.count {
                let bucket = Self.bucket(Int(path[position]), Int(path[position + 1]), mask: self.bucketMask)
                var entry = Int(self.bucketStarts[bucket])
                let end = Int(self.bucketStarts[bucket + 1])
                while entry < end {
                    self.offer(Int(self.filed[entry]), path, present, tried, &best, allows)
                    entry += 1
                }
                position += 1
            }
        }
    }

    @inline(__always)
    private func offer(
        _ index: Int,
        _ path: UnsafeBufferPointer<UInt8>,
        _ present: OctetSignature,
        _ tried: UnsafeMutableBufferPointer<UInt64>,
        _ best: inout RobotsRuleIndex.Best,
        _ allows: UnsafeBufferPointer<Bool>
    ) {
        let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
        guard tried[word] & bit == 0 else {
            return
        }
        tried[word] |= bit
        let filter = self.filters[index]
        guard filter.priority >= max(best.allowPriority, best.disallowPriority), present.contains(filter.required)
        else {
            return
        }
        let pattern = self.patterns[index]
        if self.matches(pattern, path) {
            best.consider(pattern.rule, priority: pattern.priority, isAllow: allows[Int(pattern.rule)])
        }
    }

    /// Whether `path` starts with the pattern's head and holds its pieces in order after it, the last
    /// one at the very end if the pattern ends in `$`.
    private func matches(_ pattern: Pattern, _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        let headLength = Int(pattern.headLength)
        guard path.count >= headLength else {
            return false
        }
        let headMatches = UnsafeBufferPointer(
            rebasing: self.heads[Int(pattern.headStart)..<(Int(pattern.headStart) + headLength)]
        ).elementsEqual(UnsafeBufferPointer(rebasing: path[0..<headLength]))
        guard headMatches else {
            return false
        }
        var position = headLength
        let first = Int(pattern.pieceStart)
        let last = first + Int(pattern.pieceCount) - 1
        let octets = UnsafeBufferPointer(self.pieceOctets)
        func piece(_ index: Int) -> UnsafeBufferPointer<UInt8> {
            let (start, end) = self.pieceBounds[index]
            return UnsafeBufferPointer(rebasing: octets[Int(start)..<Int(end)])
        }
        let tail = piece(last)
        // An anchored tail is checked first: one comparison at the end that most paths fail.
        if pattern.anchored {
            guard path.count - position >= tail.count,
                UnsafeBufferPointer(rebasing: path[(path.count - tail.count)...]).elementsEqual(tail)
            else {
                return false
            }
        }
        for index in first..<last {
            let needle = piece(index)
            if needle.isEmpty {
                continue
            }
            guard let found = Self.find(needle, in: path, from: position) else {
                return false
            }
            position = found + needle.count
        }
        if pattern.anchored {
            return path.count - position >= tail.count
        }
        return tail.isEmpty || Self.find(tail, in: path, from: position) != nil
    }

    private static func find(
        _ needle: UnsafeBufferPointer<UInt8>,
        in haystack: UnsafeBufferPointer<UInt8>,
        from start: Int
    ) -> Int? {
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
