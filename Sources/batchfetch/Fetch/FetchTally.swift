import BatchFetch
import BatchFetchMerge
import BatchFetchRobotsPolicy
import Foundation
import Synchronization

/// The `--stats` file of `fetch`.
struct FetchStats: Encodable {
    let records: Int
    let ok: Int
    let failed: Int
    let failuresByKind: [String: Int]
    let requests: Int
    let retries: Int
    let bytes: Int
    let elapsedSeconds: Double
    let requestsPerSecond: Double
    /// Responses by the HTTP version they came over (`HTTP/1.1`, `HTTP/2`).
    let protocols: [String: Int]
    /// With `--cache` only: hits, revalidated, misses, stored, dropped.
    let cache: HTTPCacheStatistics?
    /// With `--skip-existing` only: the URLs not fetched because their files were saved before.
    let skipped: Int?
    /// With `--shard` only: the split and this run of it, which `merge` checks.
    let shard: ShardManifest?
    /// With `--host-rate` or `--host-concurrency` only: per host, requests (retries included),
    /// statuses, pauses and the most starts in one second.
    var hosts: [String: HostCounts]? = nil
    /// Whether a signal or a closed output pipe stopped the run: the records are those written
    /// before it.
    var interrupted = false
    /// When writing the records failed: the error (`strerror`'s text), the records fetched and
    /// not written whole (``records`` counts those written whole only), and the input lines never
    /// fetched (`nil` for standard input, whose rest is not read).
    var outputError: String? = nil
    var unwritten: Int? = nil
    var unfetched: Int? = nil
    /// With `--resume` only: the records kept from the file (the counts above are this run's).
    var kept: Int? = nil
    /// With `--robots` only: per origin, what its robots.txt said and did.
    var robots: [RobotsOriginReport]? = nil
}

/// Counts records as they are written. Thread-safe.
final class FetchTally: Sendable {
    struct Snapshot: Sendable {
        var records = 0
        var failed = 0
        var failuresByKind: [String: Int] = [:]
        var requests = 0
        var retries = 0
        var bytes = 0
        var protocols: [String: Int] = [:]
        /// Records formatted and not written whole (the output failed).
        var unwritten = 0

        /// Failed records that are failures: those robots.txt disallowed are a policy, and leave
        /// the exit status 0.
        var failures: Int { FetchTally.failures(self.failed, byKind: self.failuresByKind) }
    }

    /// Of `failed` records (by kind), those that count against the exit status: not those robots.txt
    /// disallowed, a policy.
    static func failures(_ failed: Int, byKind kinds: [String: Int]) -> Int {
        failed - (kinds[FetchError.Kind.robotsDisallowed.rawValue] ?? 0)
    }

    private let state = Mutex(Snapshot())
    /// The engine's per-host counts, taken when it shut down.
    let hosts = Mutex<[String: HostCounts]>([:])
    /// What each origin's robots.txt did (`--robots`), taken when the engine shut down.
    let robots = Mutex<[RobotsOriginReport]>([])

    var snapshot: Snapshot { self.state.withLock { $0 } }

    /// Records formatted and not yet written out, by their failure kind (`nil`: ok): they count
    /// as records once written whole (``settle(written:)``).
    private let pending = Mutex<[FetchError.Kind?]>([])

    /// Counts a result's requests and bytes, and its record as pending until it is written.
    func count(_ result: FetchResult, failure: FetchError.Kind?) {
        self.pending.withLock { $0.append(failure) }
        self.state.withLock { s in
            s.requests += result.attempts
            s.retries += max(0, result.attempts - 1)
            // A copy of another record's response (its attempts are 0) moved no bytes of its own.
            if result.sharedWith == nil, let response = result.response {
                s.bytes += response.bodyByteCount
                s.protocols[response.httpVersion.rawValue, default: 0] += 1
            }
        }
    }

    /// The pending records were written out: the first `written` of them whole, the rest not.
    func settle(written: Int) {
        let records = self.pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        self.state.withLock { s in
            for failure in records.prefix(written) {
                s.records += 1
                if let failure {
                    s.failed += 1
                    s.failuresByKind[failure.rawValue, default: 0] += 1
                }
            }
            s.unwritten += max(0, records.count - written)
        }
    }
}
