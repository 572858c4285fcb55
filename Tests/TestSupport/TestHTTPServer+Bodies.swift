extension TestHTTPServer {
    /// `{"compressed":true}` as gzip (RFC 1952) made it.
    package static let gzippedJSON: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xab, 0x56, 0x4a, 0xce, 0xcf, 0x2d, 0x28, 0x4a,
        0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0xb2, 0x2a, 0x29, 0x2a, 0x4d, 0xad, 0x05, 0x00, 0xf1, 0xea, 0x39, 0x95, 0x13,
        0x00, 0x00, 0x00,
    ]

    /// `{"drinks":[{"strDrink":"Brotli Sour","idDrink":"17001"}]}` as the `brotli` command (RFC
    /// 7932) made it: what `/brotli` sends whatever the request accepts, as some servers do.
    package static let brotliJSON: [UInt8] = [
        0x1f, 0x38, 0x00, 0xf8, 0x45, 0xdd, 0x96, 0xaa, 0x2c, 0x1b, 0xfe, 0x24, 0x3c, 0x8a, 0xa1, 0x19, 0xc5, 0x66,
        0x39, 0x08, 0x87, 0x5f, 0x93, 0xd8, 0x93, 0xe8, 0x22, 0x90, 0x45, 0xf2, 0x81, 0x13, 0x98, 0xe1, 0xe1, 0x10,
        0x01, 0x19, 0x0f, 0x71, 0xbc, 0x39, 0x10, 0x54, 0xb7, 0xb3, 0x35, 0x75, 0xbb, 0x8e, 0x0c, 0x5d, 0x99, 0x0b,
        0x11, 0xe3, 0xcf, 0x0f,
    ]

    /// The body of `/doc`: an object whose values (a number, strings, `null`, a nested list) add
    /// up to at least `size` bytes; with `breaks`, CR LF between its tokens.
    package static func document(size: Int, breaks: Bool) -> String {
        let gap = breaks ? "\r\n" : ""
        var items: [String] = []
        var length = 0
        while length < size {
            let item = "{\(gap)\"n\":\(items.count),\(gap)\"name\":\"drink \(items.count)\",\"note\":null}"
            items.append(item)
            length += item.utf8.count + 1
        }
        return "{\"size\":\(size),\(gap)\"items\":[\(items.joined(separator: ",\(gap)"))]\(gap)}"
    }

    /// The prepared bodies of `/doc/NAME`, each broken in one way: `nonjson` (HTML), `truncated`,
    /// `deep` (10,000 nested arrays), `badutf8`, `empty`; any other name is a good document.
    static func document(named name: String) -> [UInt8] {
        switch name {
        case "nonjson": Array("<html><body>Service Unavailable</body></html>".utf8)
        case "truncated": Array(#"{"drinks":[{"idDrink":"1","strDrink":"Mar"#.utf8)
        case "deep":
            Array(#"{"drinks":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000)
                + Array(repeating: UInt8(ascii: "]"), count: 10_000) + [UInt8(ascii: "}")]
        case "badutf8": Array(#"{"drinks":[{"strDrink":""#.utf8) + [0xFF, 0xFE, 0xC3] + Array(#""}]}"#.utf8)
        case "empty": []
        default: Array(#"{"drinks":[{"idDrink":"1","strDrink":"Margarita"}]}"#.utf8)
        }
    }
}
