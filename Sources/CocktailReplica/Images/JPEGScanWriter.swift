/// Writes the entropy-coded data of a baseline JPEG scan: Huffman codes, magnitude bits, byte stuffing.
///
/// Follows ITU-T T.81 F.1.2: each block is its DC difference (category code, then the magnitude
/// bits) and its AC coefficients in zigzag order as run/size codes, with `ZRL` for 16 zeros and
/// `EOB` after the last non-zero coefficient. A `0xFF` byte in the data is followed by a stuffed
/// `0x00` (F.1.2.3), and ``finishSegment()`` pads the last byte with 1 bits (F.1.2.3 again), as
/// a restart marker or `EOI` must start on a byte boundary.
///
/// A value type used on one thread while a stripe is built; not on the request path.
struct JPEGScanWriter {
    private(set) var bytes: [UInt8] = []
    private var bitBuffer: UInt64 = 0
    private var bitCount = 0

    init(capacity: Int) {
        self.bytes.reserveCapacity(capacity)
    }

    /// Encodes one 8×8 block given as 64 quantised coefficients in zigzag order.
    ///
    /// - Parameter previousDC: the component's DC predictor, updated to this block's DC.
    mutating func encode(
        block: UnsafeBufferPointer<Int32>,
        previousDC: inout Int32,
        dc: JPEGHuffmanCode,
        ac: JPEGHuffmanCode
    ) {
        let difference = block[0] - previousDC
        previousDC = block[0]
        let dcCategory = Self.category(difference)
        self.write(symbol: dcCategory, code: dc)
        self.write(magnitude: difference, category: dcCategory)
        var run = 0
        for index in 1..<64 {
            let value = block[index]
            if value == 0 {
                run += 1
                continue
            }
            while run > 15 {
                self.write(symbol: 0xF0, code: ac)
                run -= 16
            }
            let category = Self.category(value)
            self.write(symbol: UInt8(run << 4) | category, code: ac)
            self.write(magnitude: value, category: category)
            run = 0
        }
        if run > 0 {
            self.write(symbol: 0x00, code: ac)
        }
    }

    /// Pads the last byte with 1 bits, ending a restart interval or the scan.
    mutating func finishSegment() {
        let padding = (8 - self.bitCount % 8) % 8
        if padding > 0 {
            self.write(bits: (1 << UInt32(padding)) - 1, count: padding)
        }
    }

    /// The magnitude category (SSSS) of `value`: the bit length of its absolute value.
    static func category(_ value: Int32) -> UInt8 {
        UInt8(32 - value.magnitude.leadingZeroBitCount)
    }

    private mutating func write(symbol: UInt8, code: JPEGHuffmanCode) {
        let length = Int(code.lengths[Int(symbol)])
        precondition(length > 0, "Huffman symbol \(symbol) has no code in this table")
        self.write(bits: code.codes[Int(symbol)], count: length)
    }

    /// The low `category` bits of `value`, or of `value - 1` when negative (T.81 F.1.2.1).
    private mutating func write(magnitude value: Int32, category: UInt8) {
        guard category > 0 else { return }
        let bits = value < 0 ? value - 1 : value
        self.write(bits: UInt32(bitPattern: bits) & ((1 << UInt32(category)) - 1), count: Int(category))
    }

    private mutating func write(bits: UInt32, count: Int) {
        self.bitBuffer = self.bitBuffer << UInt64(count) | UInt64(bits)
        self.bitCount += count
        while self.bitCount >= 8 {
            self.bitCount -= 8
            let byte = UInt8(truncatingIfNeeded: self.bitBuffer >> UInt64(self.bitCount))
            self.bytes.append(byte)
            if byte == 0xFF {
                self.bytes.append(0x00)
            }
        }
    }
}
