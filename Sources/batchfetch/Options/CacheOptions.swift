import ArgumentParser
import BatchFetch
import BatchFetchCache

/// `--cache DIR`, `--cache-mode`, `--max-age`: the on-disk response cache `fetch` and `crawl` share.
struct CacheOptions: ParsableArguments {
    @Option(help: "Keep responses in DIR (one SQLite file) and answer or revalidate repeated requests from it.")
    var cache: String?

    @Option(
        help: """
            With --cache: use (fresh entries answer, stale ones are revalidated), refresh (revalidate every \
            entry) or only (offline: send nothing; a miss is a notCached error).
            """)
    var cacheMode: HTTPCacheConfiguration.Mode = .use

    @Option(
        help: ArgumentHelp("With --cache: how long responses without caching headers stay fresh.", valueName: "SECONDS")
    )
    var maxAge: Int?

    func validate() throws {
        if self.cache == nil && (self.cacheMode != .use || self.maxAge != nil) {
            throw ValidationError("--cache-mode and --max-age need --cache DIR")
        }
        if let maxAge = self.maxAge, maxAge < 0 {
            throw ValidationError("--max-age must not be negative")
        }
    }

    /// The cache configuration these flags ask for; warnings go to standard error.
    func configuration() -> HTTPCacheConfiguration? {
        self.cache.map { directory in
            HTTPCacheConfiguration(directory: directory, mode: self.cacheMode, defaultMaxAge: self.maxAge) { message in
                FileHandleOutput.standardError.write("batchfetch: warning: \(message)\n")
            }
        }
    }

    /// The summary line for standard error.
    static func summary(_ statistics: HTTPCacheStatistics) -> String {
        var text = "cache: \(statistics.hits) hits, \(statistics.revalidated) revalidated, \(statistics.misses) misses"
        text += ", \(statistics.stored) stored"
        if statistics.dropped > 0 {
            text += ", \(statistics.dropped) not stored"
        }
        return text + "\n"
    }
}

extension HTTPCacheConfiguration.Mode: ExpressibleByArgument {}
