/// The scanner's hot loop: validating a value that holds nothing on the key path.
extension JSONScanner {
    /// Validates the value starting at `start` (whitespace already skipped), which sits `outer`
    /// levels deep, and returns the offset just after it (before any whitespace).
    ///
    /// Almost the whole document goes through here (with the path `drinks`, everything inside the
    /// list), so the loop keeps only what validation needs in locals — position, depth and the
    /// kinds of the open containers — which the optimiser can keep in registers; the key-path
    /// bookkeeping stays in `scan()`. Nesting is counted from the document's root, so the depth
    /// limit and the error messages are the same wherever a value is skipped.
    func skipValue(at start: Int, depth outer: Int) throws(Failure) -> Int {
        let base = self.base
        let count = self.count
        var position = start
        // The containers opened here: `depth - outer` of them, the innermost an object when
        // `inObject`. Their kinds are a bit stack (bit i set: level outer + i is an object),
        // spilling past 64 levels.
        var depth = outer
        var inObject = false
        var kinds: UInt64 = 0
        var deepKinds: [Bool] = []

        while true {
            // A value starts at `position` (whitespace already skipped).
            guard position < count else {
                throw Failure(offset: position, reason: "unexpected end of input, expected a value")
            }
            let byte = base[position]
            switch byte {
            case UInt8(ascii: "\""):
                position = try self.string(at: position)
            case UInt8(ascii: "n"):
                guard position + 4 <= count, self.word32(at: position) == Self.nullWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'null')")
                }
                position += 4
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < self.maxDepth else {
                    throw Failure(offset: position, reason: "nesting deeper than \(self.maxDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                let level = depth &- outer
                if level < 64 {
                    kinds = isObject ? kinds | (1 << UInt64(level)) : kinds & ~(1 << UInt64(level))
                } else {
                    deepKinds.append(isObject)
                }
                depth += 1
                inObject = isObject
                position = self.skipWhitespace(from: position + 1)
                // `{` + 2 is `}` and `[` + 2 is `]`: an empty container is closed by the code after a value.
                if position == count || base[position] != byte &+ 2 {
                    if isObject {
                        position = try self.member(at: position).next
                    }
                    continue
                }
            case UInt8(ascii: "t"):
                guard position + 4 <= count, self.word32(at: position) == Self.trueWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'true')")
                }
                position += 4
            case UInt8(ascii: "f"):
                // The 'f' is matched: compare the other four bytes in one load.
                guard position + 5 <= count, self.word32(at: position + 1) == Self.alseWord else {
                    throw Failure(offset: position, reason: "invalid literal (expected 'false')")
                }
                position += 5
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                position = try self.number(at: position)
            default:
                throw Failure(offset: position, reason: "unexpected \(Self.describe(byte)), expected a value")
            }

            // After a value: done when it was the one asked for, else a separator or a closing
            // bracket (the end of input cannot come inside a container).
            while true {
                if depth == outer {
                    return position
                }
                guard position < count else {
                    throw Failure(
                        offset: position,
                        reason: "unexpected end of input inside \(inObject ? "an object" : "an array")")
                }
                var byte = base[position]
                if byte <= 0x20 {
                    position = self.skipWhitespace(from: position)
                    guard position < count else {
                        continue
                    }
                    byte = base[position]
                }
                position += 1
                if byte == UInt8(ascii: ",") {
                    position = self.skipWhitespace(from: position)
                    if inObject {
                        position = try self.member(at: position).next
                    }
                    break
                }
                guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw Failure(
                        offset: position - 1,
                        reason: "unexpected \(Self.describe(byte)), expected ',' or '\(inObject ? "}" : "]")'")
                }
                depth -= 1
                let level = depth &- outer
                if level >= 64 {
                    deepKinds.removeLast()
                }
                if level > 0 {
                    inObject = level <= 64 ? kinds & (1 << UInt64(level - 1)) != 0 : deepKinds[level - 65]
                }
            }
        }
    }
}
