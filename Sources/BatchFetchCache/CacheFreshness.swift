import BatchFetch

/// How long a stored response stays fresh and how old it is, after RFC 9111 §4.2. Pure: every
/// clock reading is an argument, so it is tested without a network or a clock.
///
/// batchfetch is a private cache (one user's runs), so `s-maxage` and `private` do not apply.
/// It uses no heuristic freshness (§4.2.2): a response without `max-age` or `Expires` is stale
/// at once, and revalidated before use, unless the caller gives ``defaultMaxAge`` (the command
/// line's `--max-age`, for servers such as TheCocktailDB that send no caching headers).
struct CacheFreshness: Hashable, Sendable {
    /// `Cache-Control: max-age` of the response, seconds.
    var maxAge: Int?
    /// `Cache-Control: no-cache`: may be stored, never used without revalidation.
    var noCache = false
    /// `Cache-Control: no-store`: never stored.
    var noStore = false
    /// `Expires`, seconds since 1970; `Int.min` when present but not a valid date (already expired).
    var expires: Int?
    /// `Date`, seconds since 1970.
    var date: Int?
    /// `Age`, seconds.
    var age = 0

    /// Reads the directives from a response's headers, in one pass over their bytes (this runs
    /// for every cache hit): `Cache-Control` from every field, the others from their first.
    init(headers: HTTPHeaders) {
        var expires: Int?? = nil
        var date: Int?? = nil
        var age: Int?? = nil
        headers.forEachField { name, value in
            switch name.count {
            case 13 where name.isASCIICaseInsensitive("cache-control"):
                self.read(cacheControl: String(decoding: value, as: UTF8.self))
            case 7 where expires == nil && name.isASCIICaseInsensitive("expires"):
                expires = .some(HTTPDate.parse(value) ?? Int.min)
            case 4 where date == nil && name.isASCIICaseInsensitive("date"):
                date = .some(HTTPDate.parse(value))
            case 3 where age == nil && name.isASCIICaseInsensitive("age"):
                age = .some(HTTPDate.integer(value))
            default:
                break
            }
        }
        self.expires = expires ?? nil
        self.date = date ?? nil
        self.age = (age ?? nil).map { max(0, $0) } ?? 0
    }

    private mutating func read(cacheControl value: String) {
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
            switch name {
            case "max-age":
                // RFC 9111 §4.2.1: an invalid max-age makes the response stale.
                let seconds = argument.flatMap { Int($0.trimmingCharacters(in: ["\""])) }
                self.maxAge = self.maxAge ?? max(0, seconds ?? 0)
            case "no-cache": self.noCache = true
            case "no-store": self.noStore = true
            default: break
            }
        }
    }

    /// Directives given directly (tests).
    init(
        maxAge: Int? = nil, noCache: Bool = false, noStore: Bool = false, expires: Int? = nil, date: Int? = nil,
        age: Int = 0
    ) {
        self.maxAge = maxAge
        self.noCache = noCache
        self.noStore = noStore
        self.expires = expires
        self.date = date
        self.age = age
    }

    /// Whether the response says how long it stays fresh (`max-age` or `Expires`).
    var hasExplicitLifetime: Bool { self.maxAge != nil || self.expires != nil }

    /// The freshness lifetime in seconds (§4.2.1): `max-age`, else `Expires` − `Date` (the
    /// response time when there is no `Date`), else `defaultMaxAge`, else 0.
    func lifetime(responseTime: Double, defaultMaxAge: Int?) -> Double {
        if let maxAge = self.maxAge {
            return Double(maxAge)
        }
        if let expires = self.expires {
            guard expires != Int.min else {
                return 0
            }
            return max(0, Double(expires) - (self.date.map(Double.init) ?? responseTime))
        }
        return Double(max(0, defaultMaxAge ?? 0))
    }

    /// The response's current age in seconds at `now` (§4.2.3), from when the request went out
    /// and the response came in.
    func currentAge(requestTime: Double, responseTime: Double, now: Double) -> Double {
        let apparentAge = max(0, responseTime - (self.date.map(Double.init) ?? responseTime))
        let correctedAge = Double(self.age) + max(0, responseTime - requestTime)
        return max(apparentAge, correctedAge) + max(0, now - responseTime)
    }

    /// Whether the stored response may be used at `now` without asking the server.
    func isFresh(requestTime: Double, responseTime: Double, now: Double, defaultMaxAge: Int?) -> Bool {
        guard !self.noCache else {
            return false
        }
        return self.lifetime(responseTime: responseTime, defaultMaxAge: defaultMaxAge)
            > self.currentAge(requestTime: requestTime, responseTime: responseTime, now: now)
    }
}
