import BatchFetch
import BatchFetchRobotsPolicy
import CocktailDB
import Foundation

/// The `--stats` file.
struct CrawlStats: Encodable {
    let summary: CrawlSummary
    let elapsedSeconds: Double
    let requestsPerSecond: Double
    /// With `--cache` only: hits, revalidated, misses, stored, dropped.
    let cache: HTTPCacheStatistics?
    /// With `--robots` only: what robots.txt said and did.
    let robots: [RobotsOriginReport]?
}
