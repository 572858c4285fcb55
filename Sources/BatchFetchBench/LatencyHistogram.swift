import BatchFetch
import Foundation
import Histogram

/// Durations recorded in an HDR histogram at microsecond resolution: percentiles to three
/// significant digits from 1 µs to an hour, in constant memory (about 190 KB) whatever the count.
///
/// Durations below zero count as zero; durations above an hour count as an hour (and are counted
/// in ``clampedCount``), so recording never fails and never traps.
///
/// Threading: a value type; share it across tasks by copying or behind a lock.
public struct LatencyHistogram: Sendable {
    /// The longest duration recorded as itself.
    public static let highestTrackable: Duration = .seconds(3600)

    static let highestMicroseconds: UInt64 = 3_600_000_000

    // Internal, not private: the V2 codec (LatencyHistogram+Encoding.swift) reads and fills it.
    var histogram: Histogram<UInt64>

    /// How many recorded durations were above ``highestTrackable`` and recorded as it.
    public internal(set) var clampedCount = 0

    /// An empty histogram.
    public init() {
        self.histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1,
            highestTrackableValue: Self.highestMicroseconds,
            numberOfSignificantValueDigits: .three
        )
    }

    /// Records one duration.
    public mutating func record(_ duration: Duration) {
        let microseconds = Self.microseconds(duration)
        if microseconds > Self.highestMicroseconds {
            self.clampedCount += 1
            self.histogram.record(Self.highestMicroseconds)
        } else {
            self.histogram.record(microseconds)
        }
    }

    /// Adds every duration of `other` to this histogram.
    public mutating func add(_ other: LatencyHistogram) {
        self.histogram.add(other.histogram)
        self.clampedCount += other.clampedCount
    }

    /// How many durations were recorded.
    public var count: Int { Int(clamping: self.histogram.totalCount) }

    /// Whether nothing was recorded.
    public var isEmpty: Bool { self.histogram.totalCount == 0 }

    /// The smallest duration recorded (to the histogram's resolution); zero when empty.
    public var min: Duration { .microseconds(Int64(self.histogram.min)) }

    /// The largest duration recorded (to the histogram's resolution); zero when empty.
    public var max: Duration { .microseconds(Int64(clamping: self.histogram.max)) }

    /// The mean of the recorded durations; zero when empty.
    public var mean: Duration { Self.duration(microseconds: self.histogram.mean) }

    /// The standard deviation of the recorded durations; zero when empty.
    public var standardDeviation: Duration { Self.duration(microseconds: self.histogram.stdDeviation) }

    /// The duration at or below which `percentile` percent of the recorded durations fall
    /// (`percentile` in 0...100, e.g. 99.9); zero when empty.
    public func value(atPercentile percentile: Double) -> Duration {
        let clamped = Swift.min(Swift.max(percentile.isNaN ? 0 : percentile, 0), 100)
        return .microseconds(Int64(clamping: self.histogram.valueAtPercentile(clamped)))
    }

    /// The distribution in at most `maxBuckets` contiguous buckets from ``min`` to ``max``, for a
    /// person to read: logarithmic widths when the durations span more than a factor of 4 (so a
    /// long tail does not squash the body into one bar), equal widths otherwise. Empty when
    /// nothing was recorded. Each recorded value lands in exactly one bucket, so the counts add
    /// up to ``count``.
    public func buckets(maxBuckets: Int = 12) -> [Bucket] {
        guard !self.isEmpty else {
            return []
        }
        let low = Double(Swift.max(self.histogram.min, 1))
        let high = Double(Swift.max(self.histogram.max, self.histogram.min + 1))
        let bucketCount = Swift.max(1, Swift.min(maxBuckets, Int(high - low) + 1))
        let logarithmic = high / low > 4
        var edges: [UInt64] = [UInt64(low)]
        for step in 1...bucketCount {
            let fraction = Double(step) / Double(bucketCount)
            let edge = logarithmic ? low * pow(high / low, fraction) : low + (high - low) * fraction
            let rounded = Swift.max(UInt64(edge.rounded(.up)), (edges.last ?? 0) + 1)
            edges.append(rounded)
        }
        edges[edges.count - 1] = Swift.max(edges[edges.count - 1], self.histogram.max) + 1
        var counts = [Int](repeating: 0, count: bucketCount)
        for item in self.histogram.recordedValues() {
            let value = self.histogram.medianEquivalentForValue(item.value)
            // The first edge whose bucket holds the value: upper edges are exclusive.
            var index = 0
            while index < bucketCount - 1 && value >= edges[index + 1] {
                index += 1
            }
            counts[index] += Int(clamping: item.count)
        }
        return (0..<bucketCount).map { index in
            Bucket(
                lowerBound: .microseconds(Int64(clamping: index == 0 ? self.histogram.min : edges[index])),
                upperBound: .microseconds(Int64(clamping: edges[index + 1])),
                count: counts[index]
            )
        }
    }

    /// The standard HdrHistogram percentile distribution (the `.hgrm` text HdrHistogram plotters
    /// read): the `Value Percentile TotalCount 1/(1-Percentile)` table, values in milliseconds,
    /// then the `#[Mean …]`, `#[Max …]` and `#[Buckets …]` footer lines.
    public func percentileDistribution(ticksPerHalfDistance: Int = 5) -> String {
        var text = ""
        self.histogram.outputPercentileDistribution(
            to: &text, outputValueUnitScalingRatio: 1000, percentileTicksPerHalfDistance: ticksPerHalfDistance)
        return text
    }

    /// A range of durations and how many recorded durations fell in it.
    public struct Bucket: Sendable, Hashable {
        /// The smallest duration the bucket holds.
        public var lowerBound: Duration
        /// The first duration past the bucket (exclusive).
        public var upperBound: Duration
        /// How many recorded durations fell in the bucket.
        public var count: Int

        /// Creates a bucket.
        public init(lowerBound: Duration, upperBound: Duration, count: Int) {
            self.lowerBound = lowerBound
            self.upperBound = upperBound
            self.count = count
        }
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        // Both components of a negative duration may be negative (seconds 0, attoseconds -5e15 for
        // -5 ms), so test the whole duration.
        guard duration > .zero else {
            return 0
        }
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Self.highestMicroseconds / 1_000_000) * 2 else {
            return Self.highestMicroseconds + 1
        }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }

    private static func duration(microseconds: Double) -> Duration {
        guard microseconds.isFinite, microseconds > 0 else {
            return .zero
        }
        return .nanoseconds(Int64(clamping: UInt64(Swift.min(microseconds * 1000, 9e18))))
    }
}

extension LatencyHistogram {
    /// Forgets every recorded duration, keeping the histogram's storage for reuse.
    public mutating func reset() {
        self.histogram.reset()
        self.clampedCount = 0
    }
}
