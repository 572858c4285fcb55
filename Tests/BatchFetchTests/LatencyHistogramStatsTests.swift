import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``LatencyHistogram``: percentiles, buckets and the `.hgrm` text, without a network.
struct LatencyHistogramStatsTests {
    /// 1 ms, 2 ms, … 1000 ms, once each.
    private func linear() -> LatencyHistogram {
        var histogram = LatencyHistogram()
        for milliseconds in 1...1000 {
            histogram.record(.milliseconds(milliseconds))
        }
        return histogram
    }

    @Test func percentilesOfAKnownDistributionAreWithinTheHistogramsPrecision() {
        let histogram = self.linear()
        #expect(histogram.count == 1000)
        let cases: [(Double, Double)] = [(50, 500), (90, 900), (99, 990), (99.9, 999), (100, 1000)]
        for (percentile, expected) in cases {
            let value = BenchRecorder.milliseconds(histogram.value(atPercentile: percentile))
            #expect(abs(value - expected) <= expected * 0.001 + 0.001, "p\(percentile) = \(value)")
        }
        #expect(BenchRecorder.milliseconds(histogram.min) == 1)
        #expect(abs(BenchRecorder.milliseconds(histogram.max) - 1000) <= 1)
        #expect(abs(BenchRecorder.milliseconds(histogram.mean) - 500.5) <= 0.5)
    }

    @Test func negativeAndHugeDurationsAreClampedInsteadOfLost() {
        var histogram = LatencyHistogram()
        histogram.record(.milliseconds(-5))
        histogram.record(.seconds(10_000))
        histogram.record(.seconds(Int64.max))
        #expect(histogram.count == 3)
        #expect(histogram.min == .zero)
        #expect(histogram.clampedCount == 2)
        #expect(histogram.max >= LatencyHistogram.highestTrackable)
    }

    @Test func anEmptyHistogramReportsZerosAndNoBuckets() {
        let histogram = LatencyHistogram()
        #expect(histogram.isEmpty && histogram.count == 0)
        #expect(histogram.value(atPercentile: 99) == .zero)
        #expect(histogram.mean == .zero && histogram.max == .zero)
        #expect(histogram.buckets().isEmpty)
    }

    @Test func bucketsCoverTheRangeContiguouslyAndCountEveryValueOnce() {
        var histogram = self.linear()
        histogram.record(.seconds(30))
        let buckets = histogram.buckets(maxBuckets: 12)
        #expect(buckets.count == 12)
        #expect(buckets.reduce(0) { $0 + $1.count } == histogram.count)
        #expect(buckets.first?.lowerBound == histogram.min)
        #expect((buckets.last?.upperBound ?? .zero) > histogram.max)
        for (left, right) in zip(buckets, buckets.dropFirst()) {
            #expect(left.upperBound == right.lowerBound)
            #expect(left.lowerBound < left.upperBound)
        }
        // Logarithmic widths: the tail bucket is far wider than the first.
        let first = buckets[0].upperBound - buckets[0].lowerBound
        let last = buckets[11].upperBound - buckets[11].lowerBound
        #expect(last > first * 100)
        #expect(buckets[11].count == 1, "the lone 30 s outlier has a bucket of its own")
    }

    @Test func aNarrowRangeGetsEqualWidthBuckets() {
        var histogram = LatencyHistogram()
        for microseconds in 20_000...22_000 {
            histogram.record(.microseconds(microseconds))
        }
        let buckets = histogram.buckets(maxBuckets: 4)
        #expect(buckets.count == 4)
        #expect(buckets.reduce(0) { $0 + $1.count } == 2001)
        let widths = buckets.dropLast().map { $0.upperBound - $0.lowerBound }
        #expect(Set(widths).count == 1, "\(widths)")
    }

    @Test func addingHistogramsEqualsRecordingIntoOne() {
        var left = LatencyHistogram()
        var right = LatencyHistogram()
        var both = LatencyHistogram()
        for value in 1...500 {
            left.record(.microseconds(value * 37))
            both.record(.microseconds(value * 37))
            right.record(.microseconds(value * 91))
            both.record(.microseconds(value * 91))
        }
        left.add(right)
        #expect(left.count == both.count)
        for percentile in [1.0, 50, 90, 99, 100] {
            #expect(left.value(atPercentile: percentile) == both.value(atPercentile: percentile))
        }
    }

    @Test func percentileDistributionIsTheHgrmFormatPlottersRead() throws {
        let text = self.linear().percentileDistribution()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].split(separator: " ") == ["Value", "Percentile", "TotalCount", "1/(1-Percentile)"])
        let rows = lines.dropFirst().filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let parsed = rows.map { $0.split(separator: " ").map(String.init) }
        #expect(parsed.count > 20)
        let values = parsed.compactMap { Double($0[0]) }
        let percentiles = parsed.compactMap { Double($0[1]) }
        let counts = parsed.compactMap { Int($0[2]) }
        #expect(values.count == parsed.count && percentiles.count == parsed.count && counts.count == parsed.count)
        #expect(zip(percentiles, percentiles.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(percentiles.last == 1.0 && counts.last == 1000)
        #expect(abs((values.last ?? 0) - 1000) <= 1, "values are in milliseconds")
        let footer = lines.filter { $0.hasPrefix("#[") }
        #expect(footer.count == 3)
        #expect(footer.first?.hasPrefix("#[Mean    =") == true)
        #expect(lines.last(where: { !$0.isEmpty })?.hasPrefix("#[Buckets") == true)
    }
}
