import Testing

@testable import BatchFetch

struct SplitPlanTests {
    private let plan = SplitPlan(minimum: 100)

    @Test func thePartWithTheMostBytesLeftIsSplitHalfwayThroughWhatItHasLeft() {
        let candidates = [
            SplitPlan.Candidate(start: 0, end: 1000, received: 900),
            SplitPlan.Candidate(start: 0, end: 2000, received: 1000),
            SplitPlan.Candidate(start: 500, end: 1000, received: 10),
        ]
        #expect(self.plan.choose(candidates) == SplitPlan.Choice(index: 1, at: 1500))
    }

    @Test func aHelpersPartIsSplitFromItsOwnStart() {
        let candidates = [SplitPlan.Candidate(start: 1000, end: 2000, received: 200)]
        #expect(self.plan.choose(candidates) == SplitPlan.Choice(index: 0, at: 1600))
    }

    @Test func lessThanTwiceTheMinimumLeftIsNotSplit() {
        #expect(self.plan.choose([SplitPlan.Candidate(start: 0, end: 300, received: 101)]) == nil)
        #expect(
            self.plan.choose([SplitPlan.Candidate(start: 0, end: 300, received: 100)])
                == SplitPlan.Choice(index: 0, at: 200))
    }

    @Test func aPartWhoseBodyHasNotBegunIsNotSplit() {
        #expect(self.plan.choose([SplitPlan.Candidate(start: 0, end: 10_000, received: 0)]) == nil)
        #expect(self.plan.choose([]) == nil)
    }
}
