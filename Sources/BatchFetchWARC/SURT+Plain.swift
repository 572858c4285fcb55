extension SURT {
    /// The key of a plain URL in one pass into one buffer (the general path allocates some twenty
    /// arrays a URL, and every archived response needs a key): `scheme://host[:port][/path][?query]`
    /// of printable ASCII without `%`, `#`, `@` or `[`, whose path has no empty, `.` or `..`
    /// segment but a last one, and whose query's arguments are in sorted order already. `nil` for
    /// any other URL, which the general path takes.
    static func plainKey(_ url: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        for byte in url
        where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#")
            || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "[")
        {
            return nil
        }
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")), colon + 2 < url.count,
            url[colon + 1] == UInt8(ascii: "/"), url[colon + 2] == UInt8(ascii: "/")
        else {
            return nil
        }
        let hostStart = colon + 3
        var authorityEnd = hostStart
        while authorityEnd < url.count && url[authorityEnd] != UInt8(ascii: "/")
            && url[authorityEnd] != UInt8(ascii: "?")
        {
            authorityEnd += 1
        }
        var hostEnd = authorityEnd
        var port: Range<Int>?
        if let portColon = url[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = portColon
            port = portColon + 1 < authorityEnd ? (portColon + 1)..<authorityEnd : nil
        }
        var key: [UInt8] = []
        key.reserveCapacity(url.count + 8)
        // The labels from the last, without trailing dots or a leading `www`, `www2`, ….
        while hostEnd > hostStart && url[hostEnd - 1] == UInt8(ascii: ".") {
            hostEnd -= 1
        }
        var labelsStart = hostStart
        if let dot = url[hostStart..<hostEnd].firstIndex(of: UInt8(ascii: ".")), dot - hostStart >= 3,
            url[hostStart].asciiLowercased == UInt8(ascii: "w"),
            url[hostStart + 1].asciiLowercased == UInt8(ascii: "w"),
            url[hostStart + 2].asciiLowercased == UInt8(ascii: "w"),
            url[(hostStart + 3)..<dot].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        {
            labelsStart = dot + 1
        }
        var labelEnd = hostEnd
        while true {
            var labelStart = labelEnd
            while labelStart > labelsStart && url[labelStart - 1] != UInt8(ascii: ".") {
                labelStart -= 1
            }
            Self.appendLowercased(url, labelStart..<labelEnd, to: &key)
            if labelStart <= labelsStart {
                break
            }
            key.append(UInt8(ascii: ","))
            labelEnd = labelStart - 1
        }
        if let port {
            let scheme = url[..<colon]
            let https = scheme.elementsEqual("https".utf8) { $0.asciiLowercased == $1 }
            let http = scheme.elementsEqual("http".utf8) { $0.asciiLowercased == $1 }
            let standard = https ? "443" : http ? "80" : ""
            if !url[port].elementsEqual(standard.utf8) {
                key.append(UInt8(ascii: ":"))
                key += url[port]
            }
        }
        key.append(UInt8(ascii: ")"))
        let mark = url[authorityEnd...].firstIndex(of: UInt8(ascii: "?")) ?? url.count
        let path = url[authorityEnd..<mark]
        if path.isEmpty {
            key.append(UInt8(ascii: "/"))
        } else {
            // After the first slash, segments separated by single slashes, none `.` or `..`.
            var segmentStart = path.startIndex + 1
            for index in segmentStart...path.endIndex where index == path.endIndex || path[index] == UInt8(ascii: "/") {
                let segment = path[segmentStart..<index]
                let dots = segment.allSatisfy { $0 == UInt8(ascii: ".") }
                if (segment.isEmpty && index < path.endIndex) || (dots && !segment.isEmpty && segment.count <= 2) {
                    return nil
                }
                segmentStart = index + 1
            }
            let trailingSlash = path.count > 1 && path.last == UInt8(ascii: "/")
            Self.appendLowercased(url, path.startIndex..<(trailingSlash ? path.endIndex - 1 : path.endIndex), to: &key)
        }
        guard mark + 1 < url.count else {
            return key
        }
        key.append(UInt8(ascii: "?"))
        let queryStart = key.count
        Self.appendLowercased(url, (mark + 1)..<url.count, to: &key)
        let sorted = key.withUnsafeBufferPointer { Self.argumentsSorted($0[queryStart...]) }
        return sorted ? key : nil
    }

    fileprivate static func appendLowercased(
        _ url: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, to key: inout [UInt8]
    ) {
        for index in range {
            key.append(url[index].asciiLowercased)
        }
    }

    /// Whether a query's `&`-separated arguments are in the order ``canonicalQuery(_:)`` sorts them.
    fileprivate static func argumentsSorted(_ query: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard query.count > 1 else {
            return true
        }
        // The previous argument's key, and its value when it has an `=`.
        var previousKey: Range<Int>?
        var previousValue: Range<Int>?
        var start = query.startIndex
        while start <= query.endIndex {
            var end = start
            var equals: Int?
            while end < query.endIndex && query[end] != UInt8(ascii: "&") {
                if equals == nil && query[end] == UInt8(ascii: "=") {
                    equals = end
                }
                end += 1
            }
            let key = start..<(equals ?? end)
            let value = equals.map { ($0 + 1)..<end }
            if let before = previousKey {
                let order = Self.compare(query, before, key)
                if order > 0 {
                    return false
                }
                if order == 0, let earlier = previousValue {
                    // A bare key sorts before the same key with a value; values in order.
                    guard let value, Self.compare(query, earlier, value) <= 0 else {
                        return false
                    }
                }
            }
            previousKey = key
            previousValue = value
            start = end + 1
        }
        return true
    }

    /// The order of two byte ranges of `bytes`: negative, zero or positive.
    fileprivate static func compare(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lhs: Range<Int>, _ rhs: Range<Int>)
        -> Int
    {
        let common = min(lhs.count, rhs.count)
        for offset in 0..<common where bytes[lhs.lowerBound + offset] != bytes[rhs.lowerBound + offset] {
            return Int(bytes[lhs.lowerBound + offset]) - Int(bytes[rhs.lowerBound + offset])
        }
        return lhs.count - rhs.count
    }
}
