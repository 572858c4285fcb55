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
    /// Whether a signal stopped the run: the facets counted are those written before it.
    let interrupted: Bool
    /// With `--robots` only: what robots.txt said and did.
    let robots: [RobotsOriginReport]?
}
