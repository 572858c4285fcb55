import BatchFetch
import Foundation

/// HdrHistogram's standard compressed encoding (the "V2" format every HdrHistogram library reads:
/// Java's `encodeIntoCompressedByteBuffer`, Python's `HdrHistogram.decode`, HistogramLogAnalyzer),
/// base64 as in interval logs, so a run's whole distribution can be kept, re-read and added.
///
/// Layout, big-endian: cookie `0x1c849314`, length of what follows, then a zlib stream holding a
/// 40-byte header (cookie `0x1c849313`, payload length, normalizing offset 0, significant digits,
/// lowest and highest trackable value, conversion ratio 1.0) and the counts array as ZigZag
/// LEB128 varints, a negative one standing for that many empty buckets.
///
/// The zlib stream is written with stored (uncompressed) DEFLATE blocks: every inflater reads
/// them and the varint payload is already compact (empty ranges are runs). Reading goes through
/// zlib's inflate, so it takes compressed blocks too, as HdrHistogram's own libraries write them,
/// and any layout (significant digits, lowest and highest trackable value): each count is added
/// at its bucket's lowest value, in microseconds, to batchfetch's layout.
extension LatencyHistogram {
    static let compressedCookie: UInt32 = 0x1c84_9314
    static let encodingCookie: UInt32 = 0x1c84_9313

    /// The histogram in HdrHistogram's compressed V2 encoding, base64.
    public var encoded: String {
        var payload: [UInt8] = []
        let counts = self.countsByIndex()
        var index = 0
        while index < counts.count {
            let count = counts[index]
            if count == 0 {
                var zeros = 1
                while index + zeros < counts.count && counts[index + zeros] == 0 {
                    zeros += 1
                }
                Self.appendZigZag(-Int64(zeros), to: &payload)
                index += zeros
            } else {
                Self.appendZigZag(Int64(clamping: count), to: &payload)
                index += 1
            }
        }
        var inner: [UInt8] = []
        inner.reserveCapacity(40 + payload.count)
        Self.append(Self.encodingCookie, to: &inner)
        Self.append(UInt32(payload.count), to: &inner)
        Self.append(UInt32(0), to: &inner)
        Self.append(UInt32(self.histogram.numberOfSignificantValueDigits.rawValue), to: &inner)
        Self.append(self.histogram.lowestDiscernibleValue, to: &inner)
        Self.append(self.histogram.highestTrackableValue, to: &inner)
        Self.append((1.0 as Double).bitPattern, to: &inner)
        inner += payload
        let zlib = ZlibStored.wrap(inner)
        var outer: [UInt8] = []
        outer.reserveCapacity(8 + zlib.count)
        Self.append(Self.compressedCookie, to: &outer)
        Self.append(UInt32(zlib.count), to: &outer)
        outer += zlib
        return Data(outer).base64EncodedString()
    }

    /// Reads a histogram in HdrHistogram's compressed V2 encoding (base64): one batchfetch wrote,
    /// or one from HdrHistogram's libraries, whose values must be microseconds.
    ///
    /// - Throws: ``FetchError`` of kind ``FetchError/Kind/invalidResponse`` naming what is wrong
    ///   (not base64, a wrong cookie, a damaged or truncated DEFLATE stream, a layout no
    ///   HdrHistogram writes, a count cut short).
    public init(encoded text: String) throws(FetchError) {
        self.init()
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw Self.decodingError("not base64")
        }
        let outer = [UInt8](data)
        guard outer.count >= 8, Self.readUInt32(outer, 0) & ~0xf0 == Self.compressedCookie & ~0xf0 else {
            throw Self.decodingError("not a compressed V2 histogram (wrong cookie)")
        }
        let length = Int(Self.readUInt32(outer, 4))
        guard length <= outer.count - 8 else {
            throw Self.decodingError("it is cut short (\(outer.count - 8) of \(length) compressed bytes)")
        }
        let inner: [UInt8]
        switch ZlibInflate.inflate(outer[8..<(8 + length)], limit: Self.largestPayload) {
        case .success(let bytes):
            inner = bytes
        case .failure(.truncated):
            throw Self.decodingError("its DEFLATE stream is cut short")
        case .failure(.damaged(let reason)):
            throw Self.decodingError("its DEFLATE stream is damaged (\(reason))")
        case .failure(.tooLarge):
            throw Self.decodingError("it inflates to more than \(Self.largestPayload) bytes")
        case .failure(.unavailable):
            throw Self.decodingError("zlib could not start (out of memory)")
        }
        guard inner.count >= 40, Self.readUInt32(inner, 0) & ~0xf0 == Self.encodingCookie & ~0xf0 else {
            throw Self.decodingError("its payload is not a V2 histogram")
        }
        let payloadLength = Int(Self.readUInt32(inner, 4))
        let layout = Layout(
            digits: Self.readUInt32(inner, 12), lowest: Self.readUInt64(inner, 16), highest: Self.readUInt64(inner, 24))
        guard let layout, Self.readUInt32(inner, 8) == 0, 40 + payloadLength <= inner.count else {
            throw Self.decodingError(
                "its header is not one HdrHistogram writes (\(Self.readUInt32(inner, 12)) digits, values "
                    + "\(Self.readUInt64(inner, 16))...\(Self.readUInt64(inner, 24)), normalizing offset "
                    + "\(Self.readUInt32(inner, 8)), payload \(payloadLength) of \(inner.count - 40) bytes)")
        }
        var position = 40
        var index = 0
        let end = 40 + payloadLength
        while position < end {
            guard let value = Self.readZigZag(inner, &position, end: end) else {
                throw Self.decodingError("a count is cut short")
            }
            if value < 0 {
                let (skipped, overflow) = index.addingReportingOverflow(Int(clamping: value.magnitude))
                guard !overflow else {
                    throw Self.decodingError("a run of empty buckets lies past the largest value a histogram holds")
                }
                index = skipped
            } else {
                if value > 0 {
                    guard let bucketValue = layout.value(atIndex: index) else {
                        throw Self.decodingError("a count lies past the largest value a histogram holds")
                    }
                    self.record(microseconds: bucketValue, count: UInt64(value))
                }
                index += 1
            }
        }
    }

    /// The most a compressed histogram may inflate to: 16 MB, far more than any layout with five
    /// significant digits holds (HdrHistogram's most), so only a damaged or hostile stream is refused.
    static let largestPayload = 16 << 20

    private static func decodingError(_ reason: String) -> FetchError {
        FetchError(kind: .invalidResponse, message: "cannot read an encoded histogram: \(reason)")
    }

    /// Adds `count` durations of `microseconds`, clamped as ``record(_:)`` clamps.
    private mutating func record(microseconds: UInt64, count: UInt64) {
        if microseconds > Self.highestMicroseconds {
            self.clampedCount += Int(clamping: count)
            _ = self.histogram.record(Self.highestMicroseconds, count: count)
        } else {
            _ = self.histogram.record(microseconds, count: count)
        }
    }

    /// The counts array's layout of an encoded histogram, as every HdrHistogram implementation
    /// computes it from its significant digits and lowest discernible value.
    struct Layout {
        let unitMagnitude: Int
        let subBucketHalfCountMagnitude: Int

        /// `nil` for a header no HdrHistogram writes (digits past 5, a lowest value of 0, a highest
        /// below twice the lowest).
        init?(digits: UInt32, lowest: UInt64, highest: UInt64) {
            guard digits <= 5, lowest >= 1, highest >= 2 * lowest else {
                return nil
            }
            var largestSingleUnit = 2
            for _ in 0..<digits {
                largestSingleUnit *= 10
            }
            // ceil(log2(largestSingleUnit)), the sub-bucket count's magnitude.
            let subBucketCountMagnitude = Int.bitWidth - (largestSingleUnit - 1).leadingZeroBitCount
            self.unitMagnitude = Int(UInt64.bitWidth - 1 - lowest.leadingZeroBitCount)
            self.subBucketHalfCountMagnitude = Swift.max(subBucketCountMagnitude, 1) - 1
        }

        /// The lowest value of the bucket at `index`; `nil` past what 64 bits hold.
        func value(atIndex index: Int) -> UInt64? {
            let halfCount = 1 << self.subBucketHalfCountMagnitude
            var bucket = (index >> self.subBucketHalfCountMagnitude) - 1
            var subBucket = (index & (halfCount - 1)) + halfCount
            if bucket < 0 {
                subBucket -= halfCount
                bucket = 0
            }
            let shift = bucket + self.unitMagnitude
            guard shift + self.subBucketHalfCountMagnitude + 1 < UInt64.bitWidth else {
                return nil
            }
            return UInt64(subBucket) << UInt64(shift)
        }
    }

    // The counts array's layout, as every HdrHistogram implementation computes it, for
    // lowestDiscernibleValue 1 (unit magnitude 0) and three significant digits: 2048 sub-buckets,
    // half of them (1024) per bucket after the first.
    private static let subBucketHalfCountMagnitude = 10
    private static let subBucketHalfCount = 1 << 10
    private static let subBucketMask: UInt64 = (1 << 11) - 1

    static func countsIndex(of value: UInt64) -> Int {
        let bucket = 53 - (value | Self.subBucketMask).leadingZeroBitCount
        let subBucket = Int(value >> UInt64(bucket))
        return ((bucket + 1) << Self.subBucketHalfCountMagnitude) + subBucket - Self.subBucketHalfCount
    }

    /// The counts array up to the bucket of the largest value recorded (what the format keeps).
    private func countsByIndex() -> [UInt64] {
        guard !self.isEmpty else {
            return []
        }
        var counts = [UInt64](repeating: 0, count: Self.countsIndex(of: self.histogram.maxRecorded) + 1)
        for item in self.histogram.recordedValues() {
            let index = Self.countsIndex(of: item.value)
            if index < counts.count {
                counts[index] += item.count
            }
        }
        return counts
    }

    private static func appendZigZag(_ value: Int64, to bytes: inout [UInt8]) {
        var zigZag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        // LEB128 as HdrHistogram writes it: at most 9 bytes, the ninth carrying 8 bits.
        for _ in 0..<8 {
            if zigZag < 0x80 {
                bytes.append(UInt8(zigZag))
                return
            }
            bytes.append(UInt8(zigZag & 0x7f) | 0x80)
            zigZag >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: zigZag))
    }

    private static func readZigZag(_ bytes: [UInt8], _ position: inout Int, end: Int) -> Int64? {
        var value: UInt64 = 0
        for shift in 0..<9 {
            guard position < end else {
                return nil
            }
            let byte = bytes[position]
            position += 1
            if shift == 8 {
                value |= UInt64(byte) << 56
                break
            }
            value |= UInt64(byte & 0x7f) << UInt64(7 * shift)
            if byte & 0x80 == 0 {
                break
            }
        }
        return Int64(bitPattern: (value >> 1)) ^ -Int64(bitPattern: value & 1)
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    static func readUInt32(_ bytes: some RandomAccessCollection<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            value = value << 8 | UInt32(bytes[bytes.index(bytes.startIndex, offsetBy: offset + index)])
        }
        return value
    }

    private static func readUInt64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        UInt64(Self.readUInt32(bytes, offset)) << 32 | UInt64(Self.readUInt32(bytes, offset + 4))
    }
}

extension LatencyHistogram {
    /// The percentile spectrum as HdrHistogram's plotters draw it: (percentile in 0...100,
    /// duration) pairs, `ticksPerHalfDistance` steps each time the distance to 100 % halves, so
    /// the tail gets as many points as the body. Empty when nothing was recorded.
    public func spectrum(ticksPerHalfDistance: Int = 5) -> [(percentile: Double, duration: Duration)] {
        guard !self.isEmpty else {
            return []
        }
        return self.histogram.percentiles(ticksPerHalfDistance: ticksPerHalfDistance).map {
            (percentile: $0.percentileLevelIteratedTo, duration: .microseconds(Int64(clamping: $0.value)))
        }
    }
}
