/// The marker segments around a replica JPEG's scan (ITU-T T.81 Annex B, JFIF 1.02).
///
/// A file is ``start`` (SOI, APP0), a COM segment naming the image, ``frame(width:height:restartInterval:)``
/// (DQT, SOF0, DHT, DRI, SOS), the entropy-coded stripes with RST markers between them, and EOI.
enum JPEGHeaders {
    /// `SOI` and a JFIF `APP0` (version 1.01, no units, 1:1 density, no thumbnail).
    static let start: [UInt8] = [
        0xFF, 0xD8,
        0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
    ]

    /// `EOI`.
    static let end: [UInt8] = [0xFF, 0xD9]

    /// A `COM` segment holding `text` (at most 65,533 bytes).
    static func comment(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(65_533))
        return [0xFF, 0xFE] + Self.length(bytes.count + 2) + bytes
    }

    /// The `RSTm` marker that follows restart interval `interval` (0-based): `m` counts 0…7 and wraps.
    static func restartMarker(after interval: Int) -> (UInt8, UInt8) {
        (0xFF, 0xD0 + UInt8(interval % 8))
    }

    /// `DQT`, `SOF0` (8-bit, three components, luminance sampled 2×2), `DHT`, `DRI` and `SOS` for an
    /// image of `width` × `height` whose restart interval is `restartInterval` MCUs.
    static func frame(width: Int, height: Int, restartInterval: Int) -> [UInt8] {
        precondition((1...65_535).contains(width) && (1...65_535).contains(height), "bad size \(width)×\(height)")
        var bytes: [UInt8] = []
        bytes += [0xFF, 0xDB] + Self.length(2 + 2 * 65)
        bytes += [0x00] + JPEGTables.luminanceQuantisation
        bytes += [0x01] + JPEGTables.chrominanceQuantisation
        bytes += [0xFF, 0xC0] + Self.length(17) + [8] + Self.length(height) + Self.length(width)
        bytes += [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        let tables: [(UInt8, JPEGHuffmanCode)] = [
            (0x00, .luminanceDC), (0x10, .luminanceAC), (0x01, .chrominanceDC), (0x11, .chrominanceAC),
        ]
        let tablesLength = tables.reduce(2) { $0 + 17 + $1.1.symbols.count }
        bytes += [0xFF, 0xC4] + Self.length(tablesLength)
        for (classAndID, table) in tables {
            bytes += [classAndID] + table.counts + table.symbols
        }
        bytes += [0xFF, 0xDD] + Self.length(4) + Self.length(restartInterval)
        bytes += [0xFF, 0xDA] + Self.length(12) + [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]
        return bytes
    }

    private static func length(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
