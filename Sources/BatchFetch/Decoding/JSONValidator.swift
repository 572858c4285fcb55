internal import CBytes

/// Validation of a whole JSON document in C (CBytes/json_validate.h), accepting exactly the
/// documents ``JSONScanner`` accepts.
///
/// It answers only "valid or not": where and why a document is invalid is the scanner's to say.
/// ``Envelope`` asks it first when the key path is the whole document (every `--body auto` and
/// `--body json` record) and runs the scanner only on what it rejects, so error offsets, reasons
/// and snippets stay the scanner's. Only where it outruns the scanner (``outrunsTheScanner``):
/// the AVX2 and AVX-512 loops do; the SSE2 loop only ties it and the portable one is slower
/// (scripts/kernels measures each level; docs/BENCHMARKS.md has the figures).
///
/// Threading: stateless; call it from any thread.
enum JSONValidator {
    /// The C loops; tests hold each to the scanner's verdicts.
    enum Implementation: CaseIterable {
        /// The process's SIMD level (``SIMDLevel/current``: the CPU's best unless `BATCHFETCH_SIMD`
        /// asks for less).
        case automatic
        /// Eight bytes at a time in general-purpose registers (any CPU; the scalar level).
        case portable
        /// Sixteen bytes per compare (every x86_64; the SSE2 and SSSE3 levels).
        case sse2
        /// Thirty-two bytes per compare.
        case avx2
        /// A whole 64-byte block per compare, straight into a mask.
        case avx512
        /// Sixteen bytes per compare on aarch64, folded into masks by pairwise additions.
        case neon

        /// The SIMD level whose loop this is (`nil`: the process's).
        var level: SIMDLevel? {
            switch self {
            case .automatic: return nil
            case .portable: return .scalar
            case .sse2: return .sse2
            case .avx2: return .avx2
            case .avx512: return .avx512
            case .neon: return .neon
            }
        }

        /// Whether this machine can run it.
        var isAvailable: Bool {
            self.level?.isAvailable ?? true
        }
    }

    /// Whether the process's level runs a loop faster than the scanner (AVX2 or wider; NEON has
    /// not been timed on ARM hardware, so the scanner stays first there).
    static let outrunsTheScanner = SIMDLevel.current == .avx2 || SIMDLevel.current == .avx512

    /// Whether `bytes` are one valid JSON document with at most `maxDepth` containers open at
    /// once (`valid`); `false` also for an empty or all-whitespace document, `nil` when the
    /// validator cannot tell: nesting past 4,096 levels (allowed by `maxDepth`) and no memory for a
    /// deeper stack. And whether a valid document may hold a line break: `false` when no tab, LF or
    /// CR lies between its tokens (inside strings they are invalid), so that it is one line as it is.
    static func check(
        _ bytes: UnsafeRawBufferPointer, maxDepth: Int, using implementation: Implementation = .automatic
    ) -> (valid: Bool?, mayHoldLineBreaks: Bool) {
        precondition(implementation.isAvailable, "\(implementation) does not run on this machine")
        // An empty buffer may have no base address; C reads nothing when the count is 0.
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        // The scanner opens a container while depth < maxDepth: a negative limit is as good as 0.
        let depth = max(maxDepth, 0)
        let result: CInt
        var controls: CInt = 1
        if let level = implementation.level {
            result = cbytes_json_valid_at(level.cLevel, base, count, depth, &controls)
        } else {
            result = cbytes_json_valid(base, count, depth, &controls)
        }
        switch result {
        case 1: return (true, controls != 0)
        case 0: return (false, true)
        default: return (nil, true)
        }
    }

    /// The document's value when `bytes` are a valid document: its byte range without the
    /// surrounding whitespace and its kind, as ``JSONScanner`` finds them for the empty key path,
    /// and whether it may hold a line break (see ``check(_:maxDepth:using:)``). `nil` when the
    /// validator rejects the document or cannot tell.
    static func value(
        in bytes: UnsafeRawBufferPointer, maxDepth: Int
    ) -> (range: Range<Int>, kind: JSONValueKind, mayHoldLineBreaks: Bool)? {
        let checked = Self.check(bytes, maxDepth: maxDepth)
        guard checked.valid == true else {
            return nil
        }
        // Valid, so a value starts and ends inside; usually there is no whitespace to skip.
        var start = 0
        var end = bytes.count
        while Self.isWhitespace(bytes[start]) {
            start += 1
        }
        while Self.isWhitespace(bytes[end - 1]) {
            end -= 1
        }
        guard let kind = JSONScanner.kind(startingWith: bytes[start]) else {
            preconditionFailure("a valid document starting with byte \(bytes[start])")
        }
        return (start..<end, kind, checked.mayHoldLineBreaks)
    }

    /// JSON's whitespace (RFC 8259): space, tab, LF, CR.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
