import Testing

@testable import BatchFetch

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
}
