import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``LatencyHistogram/init(encoded:)`` on histograms other tools wrote: HdrHistogram's libraries
/// compress theirs with real DEFLATE blocks, in any layout, and a damaged one must be refused
/// with a reason, never crash.
struct LatencyHistogramDecodingTests {
    /// The values both fixtures hold, in microseconds, with their counts.
    static let samples: [(microseconds: Int64, count: Int)] = [
        (120, 500), (950, 300), (4200, 150), (87000, 49), (1_500_000, 1),
    ]

    /// `HdrHistogram(1, 3600000000, 3)` holding ``samples``, `encode()`d by Python's `hdrhistogram`
    /// 0.10 (zlib level 6: one compressed DEFLATE block).
    static let pythonThreeDigits =
        "HISTFAAAADN4nJNpmSzMwMAgxAABzFCaEURcm7yEwf4DROA94wv2nzw3WI4qrmF67pJ03pEJAPe8DIw="
    /// The same samples in `HdrHistogram(1, 60000000, 2)`: two significant digits, a lower highest value.
    static let pythonTwoDigits =
        "HISTFAAAADN4nJNpmSzMwMAgxAABTFCaEUQwT25nsP8AEXjP+IL9OesNlpUsa5hOciTN5GACANVDCoA="

    private func direct() -> LatencyHistogram {
        var histogram = LatencyHistogram()
        for (microseconds, count) in Self.samples {
            for _ in 0..<count {
                histogram.record(.microseconds(microseconds))
            }
        }
        return histogram
    }

    @Test func aHistogramPythonsHdrHistogramCompressedHasTheSamePercentilesAsOneRecordedHere() throws {
        let decoded = try LatencyHistogram(encoded: Self.pythonThreeDigits)
        let direct = self.direct()
        #expect(decoded.count == 1000)
        for percentile in [0.0, 50, 90, 99, 99.9] {
            #expect(
                decoded.value(atPercentile: percentile) == direct.value(atPercentile: percentile), "p\(percentile)")
        }
        // The largest value is kept only to its bucket (1.5 s lies in one 1,024 µs wide).
        #expect(decoded.min == direct.min)
        #expect(direct.max - decoded.max < .microseconds(1024) && decoded.max <= direct.max)
        // And back: what this side encodes (stored blocks) reads as the same histogram.
        let again = try LatencyHistogram(encoded: decoded.encoded)
        #expect(again.count == 1000 && again.value(atPercentile: 99) == direct.value(atPercentile: 99))
    }

    @Test func anotherLayoutIsReadToItsOwnPrecision() throws {
        let decoded = try LatencyHistogram(encoded: Self.pythonTwoDigits)
        let direct = self.direct()
        #expect(decoded.count == 1000 && decoded.clampedCount == 0)
        for percentile in [50.0, 90, 99, 99.9, 100] {
            let theirs = Self.microseconds(decoded.value(atPercentile: percentile))
            let ours = Self.microseconds(direct.value(atPercentile: percentile))
            // Two significant digits: within 1 % (a bucket of 128 sub-buckets is < 1/64 wide).
            #expect(abs(theirs - ours) <= ours / 64, "p\(percentile): \(theirs) µs read, \(ours) µs recorded")
        }
    }

    private static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }

    private func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try LatencyHistogram(encoded: Data(bytes).base64EncodedString())
            return nil
        } catch {
            #expect(error.kind == .invalidResponse)
            return error.message
        }
    }

    @Test func aTruncatedHistogramIsRefusedWithItsReason() throws {
        let bytes = [UInt8](try #require(Data(base64Encoded: Self.pythonThreeDigits)))
        // Cut inside the DEFLATE stream: the length field says more than there is.
        let cut = try #require(self.failure(Array(bytes.dropLast(10))))
        #expect(cut.contains("cut short"), "\(cut)")
        // The length field made to agree: zlib finds the stream itself cut short.
        var agreeing = Array(bytes.dropLast(10))
        agreeing[7] -= 10
        let inflated = try #require(self.failure(agreeing))
        #expect(inflated.contains("DEFLATE stream is cut short"), "\(inflated)")
        #expect(try #require(self.failure(Array(bytes.prefix(5)))).contains("wrong cookie"))
        #expect(try #require(self.failure([])).contains("wrong cookie"))
    }

    @Test func aDamagedStreamIsRefusedByItsChecksum() throws {
        var bytes = [UInt8](try #require(Data(base64Encoded: Self.pythonThreeDigits)))
        bytes[bytes.count - 2] ^= 0x5a
        let message = try #require(self.failure(bytes))
        #expect(message.contains("damaged"), "\(message)")
        #expect(throws: FetchError.self) { try LatencyHistogram(encoded: "not a histogram!") }
    }

    /// Every mutation either reads or throws: 3,000 seeded ones over both fixtures, each byte
    /// flipped, dropped or set to an extreme, including the header's layout and length fields.
    @Test func randomDamageNeverCrashes() throws {
        var generator = SeededGenerator(seed: 41)
        var refused = 0
        let fixtures = try [Self.pythonThreeDigits, Self.pythonTwoDigits, self.direct().encoded].map {
            [UInt8](try #require(Data(base64Encoded: $0)))
        }
        for round in 0..<3000 {
            var bytes = fixtures[round % fixtures.count]
            let position = generator.next(bytes.count)
            switch generator.next(4) {
            case 0:
                bytes[position] ^= UInt8(1 << generator.next(8))
            case 1:
                bytes.remove(at: position)
            case 2:
                bytes[position] = 0xff
            default:
                bytes[position] = 0
            }
            if self.failure(bytes) != nil {
                refused += 1
            }
        }
        #expect(refused > 2000, "most damage is noticed: \(refused) of 3000 refused")
    }
}
