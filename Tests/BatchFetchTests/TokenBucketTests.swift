import Testing

@testable import BatchFetch

struct TokenBucketTests {
    @Test func aFullBucketAllowsABurstThenPacesAtTheRate() {
        var bucket = TokenBucket(rate: 10, burst: 3, now: 0)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        let wait = bucket.take(now: 0)
        #expect(wait == 100_000_000)
        #expect(bucket.take(now: 50_000_000) == 50_000_000)
        #expect(bucket.take(now: 100_000_000) == nil)
    }

    @Test func tokensNeverExceedTheBurst() {
        var bucket = TokenBucket(rate: 100, burst: 2, now: 0)
        let later: UInt64 = 60_000_000_000
        #expect(bucket.take(now: later) == nil)
        #expect(bucket.take(now: later) == nil)
        #expect(bucket.take(now: later) != nil)
    }
}
