/// A strict reader of baseline JPEG files, written for the tests from ITU-T T.81, independent of
/// the replica's encoder.
///
/// It walks the marker segments (SOI, APP0 JFIF, DQT, SOF0, DHT, DRI, COM, SOS), then decodes
/// every Huffman code of the scan with the tables the file itself declares — each block's DC
/// difference and its AC run/size codes up to EOB — checking restart markers in order, the padding
/// before them, and EOI at the very end. It stops short of the inverse DCT: a file it accepts has
/// exactly the MCUs its frame header promises, each one decodable, which is what a decoder needs.
struct JPEGInspector {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One frame component: its id, sampling factors and quantisation table.
    struct Component: Equatable {
        var id: UInt8
        var horizontal: Int
        var vertical: Int
        var quantisationTable: Int
    }

    private(set) var width = 0
    private(set) var height = 0
    private(set) var components: [Component] = []
    private(set) var hasJFIF = false
    private(set) var quantisationTables: Set<Int> = []
    private(set) var restartInterval = 0
    private(set) var comment: String?
    /// MCUs decoded from the scan.
    private(set) var mcusDecoded = 0
    /// Restart markers met in the scan.
    private(set) var restartMarkers = 0
    /// The markers in file order (the second byte of each), up to and including SOS.
    private(set) var markers: [UInt8] = []

    private var dcTables: [Int: HuffmanDecoder] = [:]
    private var acTables: [Int: HuffmanDecoder] = [:]

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw Failure(description: "no SOI") }
        var position = 2
        while true {
            guard position + 4 <= bytes.count, bytes[position] == 0xFF else {
                throw Failure(description: "expected a marker at \(position)")
            }
            let marker = bytes[position + 1]
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            guard length >= 2, position + 2 + length <= bytes.count else {
                throw Failure(description: "segment \(marker) overruns the file")
            }
            let segment = Array(bytes[(position + 4)..<(position + 2 + length)])
            self.markers.append(marker)
            position += 2 + length
            switch marker {
            case 0xE0: self.hasJFIF = segment.starts(with: Array("JFIF\0".utf8))
            case 0xDB: try self.readQuantisation(segment)
            case 0xC0: try self.readFrame(segment)
            case 0xC4: try self.readHuffman(segment)
            case 0xDD: self.restartInterval = Int(segment[0]) << 8 | Int(segment[1])
            case 0xFE: self.comment = String(decoding: segment, as: UTF8.self)
            case 0xDA:
                let selectors = try self.readScanHeader(segment)
                try self.decodeScan(bytes, from: position, selectors: selectors)
                return
            case 0xC1...0xCF: throw Failure(description: "SOF/DHT-like marker \(marker) is not baseline")
            case 0xE1...0xEF: break
            default: throw Failure(description: "unexpected marker \(marker) before SOS")
            }
        }
    }

    private mutating func readQuantisation(_ segment: [UInt8]) throws {
        var offset = 0
        while offset < segment.count {
            guard segment[offset] >> 4 == 0, offset + 65 <= segment.count else {
                throw Failure(description: "bad DQT")
            }
            self.quantisationTables.insert(Int(segment[offset] & 0x0F))
            offset += 65
        }
    }

    private mutating func readFrame(_ segment: [UInt8]) throws {
        guard segment.count >= 6, segment[0] == 8 else { throw Failure(description: "SOF0 precision is not 8") }
        self.height = Int(segment[1]) << 8 | Int(segment[2])
        self.width = Int(segment[3]) << 8 | Int(segment[4])
        let count = Int(segment[5])
        guard segment.count == 6 + 3 * count else { throw Failure(description: "bad SOF0 length") }
        self.components = (0..<count).map { index in
            let base = 6 + 3 * index
            return Component(
                id: segment[base], horizontal: Int(segment[base + 1] >> 4), vertical: Int(segment[base + 1] & 0x0F),
                quantisationTable: Int(segment[base + 2]))
        }
    }

    private mutating func readHuffman(_ segment: [UInt8]) throws {
        var offset = 0
        while offset < segment.count {
            guard offset + 17 <= segment.count else { throw Failure(description: "bad DHT") }
            let counts = Array(segment[(offset + 1)..<(offset + 17)])
            let total = counts.reduce(0) { $0 + Int($1) }
            guard offset + 17 + total <= segment.count else { throw Failure(description: "bad DHT symbols") }
            let decoder = HuffmanDecoder(counts: counts, symbols: Array(segment[(offset + 17)..<(offset + 17 + total)]))
            if segment[offset] >> 4 == 0 {
                self.dcTables[Int(segment[offset] & 0x0F)] = decoder
            } else {
                self.acTables[Int(segment[offset] & 0x0F)] = decoder
            }
            offset += 17 + total
        }
    }

    /// The DC and AC table of each frame component, in frame order.
    private func readScanHeader(_ segment: [UInt8]) throws -> [(HuffmanDecoder, HuffmanDecoder)] {
        let count = Int(segment[0])
        guard count == self.components.count, segment.count == 4 + 2 * count else {
            throw Failure(description: "the scan must hold every component (baseline, interleaved)")
        }
        guard segment[1 + 2 * count] == 0, segment[2 + 2 * count] == 63, segment[3 + 2 * count] == 0 else {
            throw Failure(description: "not a sequential scan (Ss, Se, Ah/Al)")
        }
        return try (0..<count).map { index in
            let tables = segment[2 + 2 * index]
            guard segment[1 + 2 * index] == self.components[index].id,
                let dc = self.dcTables[Int(tables >> 4)], let ac = self.acTables[Int(tables & 0x0F)],
                self.quantisationTables.contains(self.components[index].quantisationTable)
            else {
                throw Failure(description: "scan component \(index) names a missing table")
            }
            return (dc, ac)
        }
    }

    private mutating func decodeScan(
        _ bytes: [UInt8], from start: Int, selectors: [(HuffmanDecoder, HuffmanDecoder)]
    ) throws {
        let maxH = self.components.map(\.horizontal).max() ?? 1
        let maxV = self.components.map(\.vertical).max() ?? 1
        let mcuCount = ((self.width + 8 * maxH - 1) / (8 * maxH)) * ((self.height + 8 * maxV - 1) / (8 * maxV))
        var reader = BitReader(bytes: bytes, position: start)
        for mcu in 0..<mcuCount {
            if self.restartInterval > 0, mcu > 0, mcu % self.restartInterval == 0 {
                try reader.expectRestart(UInt8(0xD0 + self.restartMarkers % 8))
                self.restartMarkers += 1
            }
            for (component, (dc, ac)) in zip(self.components, selectors) {
                for _ in 0..<(component.horizontal * component.vertical) {
                    try Self.decodeBlock(&reader, dc: dc, ac: ac)
                }
            }
            self.mcusDecoded += 1
        }
        try reader.expectEnd()
    }

    private static func decodeBlock(_ reader: inout BitReader, dc: HuffmanDecoder, ac: HuffmanDecoder) throws {
        let category = try dc.decode(&reader)
        guard category <= 11 else { throw Failure(description: "DC category \(category) > 11") }
        _ = try reader.bits(Int(category))
        var index = 1
        while index < 64 {
            let symbol = try ac.decode(&reader)
            let run = Int(symbol >> 4)
            let size = Int(symbol & 0x0F)
            if size == 0 {
                guard run == 15 else { return }  // EOB
                index += 16
                continue
            }
            guard size <= 10 else { throw Failure(description: "AC size \(size) > 10") }
            index += run
            guard index < 64 else { throw Failure(description: "AC run past the block's end") }
            _ = try reader.bits(size)
            index += 1
        }
        guard index == 64 else { throw Failure(description: "ZRL past the block's end") }
    }

    /// Canonical Huffman decoding, T.81 F.2.2.3 (one bit at a time: tests need clarity, not speed).
    struct HuffmanDecoder {
        private var maxCode = [Int](repeating: -1, count: 17)
        private var minCode = [Int](repeating: 0, count: 17)
        private var firstSymbol = [Int](repeating: 0, count: 17)
        private let symbols: [UInt8]

        init(counts: [UInt8], symbols: [UInt8]) {
            self.symbols = symbols
            var code = 0
            var next = 0
            for length in 1...16 {
                let count = Int(counts[length - 1])
                if count > 0 {
                    self.firstSymbol[length] = next
                    self.minCode[length] = code
                    self.maxCode[length] = code + count - 1
                }
                code = (code + count) << 1
                next += count
            }
        }

        func decode(_ reader: inout BitReader) throws -> UInt8 {
            var code = 0
            for length in 1...16 {
                code = code << 1 | (try reader.bits(1))
                if code <= self.maxCode[length] {
                    return self.symbols[self.firstSymbol[length] + code - self.minCode[length]]
                }
            }
            throw Failure(description: "no Huffman code matches")
        }
    }

    /// Reads entropy-coded bits, removing stuffed zero bytes and stopping at markers.
    struct BitReader {
        let bytes: [UInt8]
        var position: Int
        private var current: UInt8 = 0
        private var bitsLeft = 0

        init(bytes: [UInt8], position: Int) {
            self.bytes = bytes
            self.position = position
        }

        mutating func bits(_ count: Int) throws -> Int {
            var value = 0
            for _ in 0..<count {
                if self.bitsLeft == 0 {
                    guard self.position < self.bytes.count else { throw Failure(description: "the scan ends early") }
                    let byte = self.bytes[self.position]
                    if byte == 0xFF {
                        guard self.position + 1 < self.bytes.count, self.bytes[self.position + 1] == 0x00 else {
                            throw Failure(description: "a marker inside an MCU at \(self.position)")
                        }
                        self.position += 1
                    }
                    self.position += 1
                    self.current = byte
                    self.bitsLeft = 8
                }
                self.bitsLeft -= 1
                value = value << 1 | Int((self.current >> UInt8(self.bitsLeft)) & 1)
            }
            return value
        }

        /// Checks the padding bits (all ones, F.1.2.3) and skips to the byte boundary.
        private mutating func align() throws {
            let mask = UInt8((1 << self.bitsLeft) - 1)
            guard self.current & mask == mask else { throw Failure(description: "padding bits are not all ones") }
            self.bitsLeft = 0
        }

        mutating func expectRestart(_ marker: UInt8) throws {
            try self.align()
            guard self.position + 1 < self.bytes.count, self.bytes[self.position] == 0xFF,
                self.bytes[self.position + 1] == marker
            else {
                throw Failure(description: "expected RST marker \(marker) at \(self.position)")
            }
            self.position += 2
        }

        mutating func expectEnd() throws {
            try self.align()
            guard self.position + 2 == self.bytes.count, self.bytes[self.position] == 0xFF,
                self.bytes[self.position + 1] == 0xD9
            else {
                throw Failure(
                    description: "expected EOI as the last two bytes, at \(self.position) of \(self.bytes.count)")
            }
        }
    }
}
