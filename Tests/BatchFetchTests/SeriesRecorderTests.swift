import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``SeriesRecorder``'s cuts, without a clock: intervals follow one another and never go back.
struct SeriesRecorderTests {
    @Test func aLastCutBeforeTheTickersLastBoundaryIsLeftOutWhenNothingHappened() {
        let series = SeriesRecorder(interval: .seconds(1))
        series.noteSent(3)
        series.cut(at: series.start + .seconds(1))
        // The run ended at 0.9 s, measured before the ticker's cut at 1 s was stopped.
        series.cut(at: series.start + .milliseconds(900), final: true)
        #expect(series.points.count == 1)
        #expect(series.points.first?.sent == 3 && series.points.first?.inFlight == 3)
    }

    @Test func aLastCutBeforeTheBoundaryKeepsWhatHappenedWithoutGoingBack() {
        let series = SeriesRecorder(interval: .seconds(1))
        series.cut(at: series.start + .seconds(1))
        series.noteSent(2)
        series.cut(at: series.start + .milliseconds(900), final: true)
        let points = series.points
        #expect(points.count == 2)
        #expect(points.map(\.offsetSeconds) == [1, 1] && points.last?.intervalSeconds == 0)
        #expect(points.last?.sent == 2 && points.last?.requestsPerSecond == 0)
    }

    /// A ticker starved by a busy machine cut nothing before the run ended at 3.5 s: the final cut
    /// still gives every interval its point, each with the requests the plan had due in it.
    @Test func theFinalCutCatchesUpWithBoundariesAStarvedTickerMissed() {
        let series = SeriesRecorder(
            interval: .seconds(1),
            intendedBy: { elapsed in
                Int(elapsed / .milliseconds(100))
            })
        series.noteSent(35)
        series.cut(at: series.start + .milliseconds(3500), final: true)
        let points = series.points
        #expect(points.map(\.offsetSeconds) == [1, 2, 3, 3.5])
        #expect(points.map(\.intended) == [10, 10, 10, 5])
        #expect(points.reduce(0) { $0 + $1.sent } == 35)
    }
}
