import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``LoadStage``'s syntax and the staged schedule's due times: pure arithmetic, no clock.
struct LoadStageTests {
    @Test func stagesParseAsRampsPlateausAndPauses() throws {
        let stages = try LoadStage.parse("30s:0-500/s,5m:500/s,10s:0,30s:500-0")
        #expect(
            stages == [
                LoadStage(duration: .seconds(30), from: 0, to: 500),
                LoadStage(duration: .seconds(300), from: 500, to: 500),
                LoadStage(duration: .seconds(10), from: 0, to: 0), LoadStage(duration: .seconds(30), from: 500, to: 0),
            ])
        for bad in ["", "30s", "30s:", "0s:100", "x:100", "1s:-5", "1s:1-2-3", "1s:fast", "1s:0,2s:0"] {
            #expect(throws: FetchError.self, "\(bad)") { try LoadStage.parse(bad) }
        }
    }

    @Test func aRampSendsTheAreaUnderItsRateAndSpeedsUp() throws {
        // 1 s from 0 to 100/s, 1 s at 100/s, 1 s back to 0: 50 + 100 + 50 requests.
        let schedule = StagedSchedule(stages: try LoadStage.parse("1s:0-100,1s:100,1s:100-0"))
        let offsets = (0..<201).map { schedule.offset(of: $0) }
        #expect(offsets.prefix(200).allSatisfy { $0 != nil } && offsets[200] == nil)
        let seconds = offsets.prefix(200).compactMap { $0 }.map { BenchRecorder.seconds($0) }
        #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $0 <= $1 }, "due times never go back")
        #expect(seconds.last.map { $0 < 3 } == true)
        // On the ramp, k is due at sqrt(2k / 100): request 50 at 1 s, where the plateau starts.
        #expect(abs(seconds[8] - (16.0 / 100).squareRoot()) < 1e-6)
        #expect(abs(seconds[50] - 1) < 1e-6 && abs(seconds[100] - 1.5) < 1e-6)
        // The gaps shrink up the ramp and are 10 ms on the plateau.
        #expect(seconds[2] - seconds[1] > seconds[40] - seconds[39])
        #expect(abs((seconds[120] - seconds[119]) - 0.01) < 1e-6)
        #expect(schedule.dueCount(by: .seconds(1)) == 51 && schedule.dueCount(by: .seconds(10)) == 200)
        #expect(schedule.dueCount(by: .zero) == 1)
    }

    @Test func aPauseSendsNothingAndTheNextStageGoesOn() throws {
        let schedule = StagedSchedule(stages: try LoadStage.parse("1s:10,2s:0,1s:10"))
        let seconds = (0..<20).compactMap { schedule.offset(of: $0) }.map { BenchRecorder.seconds($0) }
        #expect(seconds.count == 20 && schedule.offset(of: 20) == nil)
        #expect(abs(seconds[9] - 0.9) < 1e-6 && abs(seconds[10] - 3) < 1e-6, "\(seconds)")
        #expect(schedule.dueCount(by: .seconds(2)) == 10)
    }
}
