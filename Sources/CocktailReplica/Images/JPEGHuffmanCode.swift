/// One Huffman table as an encoder uses it: the code and its length for each symbol.
///
/// Built from a `DHT` segment's two lists (code counts per length, symbols in code order) by the
/// canonical assignment of ITU-T T.81 Annex C, so the codes are exactly those a decoder derives
/// from the same segment. Immutable; safe to share.
struct JPEGHuffmanCode: Sendable {
    /// The code of each symbol (right-aligned), indexed by symbol.
    let codes: [UInt32]
    /// The length in bits of each symbol's code, indexed by symbol; 0 for a symbol without a code.
    let lengths: [UInt8]
    /// The `DHT` counts the table was built from.
    let counts: [UInt8]
    /// The `DHT` symbols the table was built from.
    let symbols: [UInt8]

    init(counts: [UInt8], symbols: [UInt8]) {
        precondition(counts.count == 16, "a DHT table has 16 code counts, got \(counts.count)")
        precondition(counts.reduce(0) { $0 + Int($1) } == symbols.count, "the DHT counts must add up to the symbols")
        var codes = [UInt32](repeating: 0, count: 256)
        var lengths = [UInt8](repeating: 0, count: 256)
        var code: UInt32 = 0
        var next = 0
        for length in 1...16 {
            for _ in 0..<counts[length - 1] {
                codes[Int(symbols[next])] = code
                lengths[Int(symbols[next])] = UInt8(length)
                code += 1
                next += 1
            }
            code <<= 1
        }
        self.codes = codes
        self.lengths = lengths
        self.counts = counts
        self.symbols = symbols
    }

    static let luminanceDC = JPEGHuffmanCode(counts: JPEGTables.luminanceDCCounts, symbols: JPEGTables.dcSymbols)
    static let chrominanceDC = JPEGHuffmanCode(counts: JPEGTables.chrominanceDCCounts, symbols: JPEGTables.dcSymbols)
    static let luminanceAC = JPEGHuffmanCode(
        counts: JPEGTables.luminanceACCounts, symbols: JPEGTables.luminanceACSymbols)
    static let chrominanceAC = JPEGHuffmanCode(
        counts: JPEGTables.chrominanceACCounts, symbols: JPEGTables.chrominanceACSymbols)
}
