import TestSupport
import Testing

@testable import BatchFetchWARC

struct Base32Tests {
    @Test func rfc4648TestVectorsEncodeAsTheStandardLists() {
        let vectors = [
            ("", ""), ("f", "MY======"), ("fo", "MZXQ===="), ("foo", "MZXW6==="), ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI======"),
        ]
        for (input, expected) in vectors {
            #expect(Base32.encode(Array(input.utf8)) == expected)
        }
    }

    @Test func digestsAreLabelledBase32OfLibcryptoHashes() {
        // The SHA-1 of no bytes, as warcio and cdxj-indexer write it for an empty payload.
        #expect(WARCDigest.sha1.label(of: []) == "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ")
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d (FIPS 180 example).
        #expect(WARCDigest.sha1.label(of: Array("abc".utf8)) == "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5")
        #expect(WARCDigest.sha256.hash(of: Array("abc".utf8)).prefix(4) == [0xBA, 0x78, 0x16, 0xBF])
        #expect(WARCDigest.sha256.label(of: Array("abc".utf8)).count == "sha256:".count + 56)
    }
}

struct WARCDateTests {
    @Test func warcDateHasMicrosecondsAndTheTimestampHasFourteenDigits() {
        // 2026-11-29T10:00:00Z is 1_795_946_400 seconds after the epoch.
        let date = WARCDate(seconds: 1_795_946_400, microseconds: 123_456)
        #expect(date.warcText == "2026-11-29T10:00:00.123456Z")
        #expect(date.timestamp14 == "20261129100000")
        #expect(WARCDate(seconds: 0, microseconds: 7).warcText == "1970-01-01T00:00:00.000007Z")
        #expect(WARCDate(seconds: 10, microseconds: 1_500_000) == WARCDate(seconds: 11, microseconds: 500_000))
    }
}

struct HTTPBlockTests {
    @Test func transferEncodingIsRenamedAndEveryOtherByteKept() {
        let headers: [UInt8] =
            Array("Server: x\r\ntransfer-ENCODING: chunked\r\nX-Transfer-Encoding: no\r\n".utf8)
            + [0x58, 0x3A, 0x20, 0xE9, 0xFF, 0x0D, 0x0A] + Array("Last: no break".utf8)
        let block = HTTPBlock.response(
            statusLine: Array("HTTP/1.1 200 OK\r\n".utf8), headerBytes: headers, body: [1, 2])
        let expected: [UInt8] =
            Array(
                "HTTP/1.1 200 OK\r\nServer: x\r\nX-Crawler-transfer-ENCODING: chunked\r\nX-Transfer-Encoding: no\r\n"
                    .utf8)
            + [0x58, 0x3A, 0x20, 0xE9, 0xFF, 0x0D, 0x0A] + Array("Last: no break\r\n\r\n".utf8) + [1, 2]
        #expect(block.bytes == expected)
        #expect(block.payloadStart == expected.count - 2)
        #expect(block.status == 200)
        #expect(block.headerValue("transfer-encoding") == nil)
        #expect(block.headerValue("x-crawler-transfer-encoding") == "chunked")
    }

    @Test func requestBlockStartsWithTheRequestLine() {
        let block = HTTPBlock.request(method: "POST", target: "/a?b", headerBytes: Array("Host: h\r\n".utf8), body: [9])
        #expect(block.bytes == Array("POST /a?b HTTP/1.1\r\nHost: h\r\n\r\n".utf8) + [9])
        #expect(HTTPBlock(parsing: block.bytes) == block)
        let ended = HTTPBlock.request(
            method: "POST", target: "/a?b", headerBytes: Array("Host: h\r\n\r\n".utf8), body: [9])
        #expect(ended == block)
    }
}

struct WARCRecordTests {
    @Test func fieldsAreWrittenInOrderWithDigestsAndLength() throws {
        let date = WARCDate(seconds: 1_795_946_400, microseconds: 1)
        let record = try WARCRecord.response(
            targetURI: "http://example.com/",
            date: date,
            statusLine: Array("HTTP/1.1 200 OK".utf8),
            headerBytes: [],
            body: Array("abc".utf8),
            options: .init(concurrentTo: "<urn:uuid:x>", ipAddress: "127.0.0.1", protocols: ["h2"], truncated: .time)
        )
        #expect(
            record.fields.map(\.name) == [
                "WARC-Type", "WARC-Record-ID", "WARC-Date", "WARC-Target-URI", "WARC-Concurrent-To", "WARC-IP-Address",
                "WARC-Protocol", "WARC-Truncated", "Content-Type", "WARC-Payload-Digest", "WARC-Block-Digest",
                "Content-Length",
            ])
        #expect(record.field("warc-date") == "2026-11-29T10:00:00.000001Z")
        #expect(record.payloadDigest == "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5")
        #expect(record.field("Content-Length") == String(Array("HTTP/1.1 200 OK\r\n\r\nabc".utf8).count))
        #expect(record.serialized.suffix(7) == Array("abc\r\n\r\n".utf8))
        #expect(record.id.hasPrefix("<urn:uuid:") && record.id.hasSuffix(">") && record.id.count == 47)
    }

    @Test func recordIDsAreDistinctVersionFourUUIDs() {
        let ids = (0..<2_000).map { _ in WARCRecord.newID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            // <urn:uuid:xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx>
            let uuid = Array(id.utf8.dropFirst(10).dropLast())
            #expect(uuid.count == 36 && [8, 13, 18, 23].allSatisfy { uuid[$0] == UInt8(ascii: "-") }, "\(id)")
            #expect(uuid[14] == UInt8(ascii: "4") && "89ab".utf8.contains(uuid[19]), "\(id)")
            #expect(uuid.allSatisfy { "0123456789abcdef-".utf8.contains($0) }, "\(id)")
        }
    }

    @Test func aLineBreakInATargetURIIsRefused() {
        #expect(throws: WARCError.self) {
            _ = try WARCRecord.request(
                targetURI: "http://example.com/\r\nWARC-Type: x",
                date: .now(),
                method: "GET",
                target: "/",
                headerBytes: []
            )
        }
        #expect(throws: WARCError.self) {
            _ = try WARCRecord.warcinfo(date: .now(), filename: nil, software: "s", fields: [WARCField("a", "b\nc")])
        }
    }
}

struct SURTTests {
    /// What the `surt` package answers for these (checked again against it in
    /// ``keysAgreeWithTheSurtPackage()``).
    static let cases = [
        ("http://www.Example.com/Path/?b=2&a=1#frag", "com,example)/path?a=1&b=2"),
        ("https://example.com:443/", "com,example)/"),
        ("http://127.0.0.1:8080/x/y/", "1,0,0,127:8080)/x/y"),
        ("http://[::1]:8080/a", "::1:8080)/a"),
        ("http://user:pw@WWW2.foo.com:81/a//b?", "com,foo:81)/a/b"),
        ("http://example.com", "com,example)/"),
        ("http://example.com/a%2Fb?Q=%2F&a", "com,example)/a/b?a&q=/"),
        ("http://example.com./x", "com,example)/x"),
        ("http://example.com/a/../b", "com,example)/b"),
        ("http://example.com/../a/./b/..", "com,example)/../a"),
        ("http://example.com/a//../b/", "com,example)/a/b"),
        ("http://example.com/a;b?c=d&c", "com,example)/a;b?c&c=d"),
        ("http://localhost:3000/p?z&y=", "localhost:3000)/p?y=&z"),
        ("http://sub.www.example.com/", "com,example,www,sub)/"),
        ("http://example.com/caf%C3%A9%20x?q=%e9", "com,example)/caf%c3%a9%20x?q=%e9"),
        ("http://www2foo.com/A", "com,www2foo)/a"),
    ]

    @Test func keysFollowTheSurtPackagesRules() {
        for (url, key) in Self.cases {
            #expect(SURT.key(url) == key, "\(url)")
        }
        // Line breaks are dropped first, a CR LF pair too (the oracle's line protocol cannot carry them).
        #expect(SURT.key("http://exa\r\nmple.com/a\r\nb\n") == "com,example)/ab")
    }

    /// `count` ASCII URLs drawn from the parts SURT rewrites: case, `www` prefixes, user
    /// information, ports, repeated slashes, dot segments (escaped ones too), escapes, queries to
    /// sort, fragments.
    static func randomURLs(_ count: Int) -> [String] {
        var generator = SeededGenerator(seed: 53)
        func pick(_ choices: [String]) -> String { choices[generator.next(choices.count)] }
        return (0..<count).map { _ in
            pick(["http://", "https://", "HTTP://", "ftp://"]) + pick(["", "user@", "u:p@"])
                + pick(["www.", "WWW3.", "", "www.www.", "wwwx."])
                + pick(["Example.com", "a.b.org", "127.0.0.1", "x."])
                + pick(["", ":80", ":443", ":8080", ":"])
                + (0..<generator.next(4)).map { _ in
                    "/" + pick(["A", "b%2F", "", "%7e~", "c%25%32%35", "d;e", "%C3%A9", ".", "..", "%2e%2E", "..."])
                }.joined()
                + pick(["", "/", "?", "?b=2&a=1", "?Z&y=&y", "?a=%41&a", "?q=a+b&q=A"]) + pick(["", "#f", "#a?b"])
        }
    }

    /// Plain URLs (the fast path's) in the shapes it must get right or refuse: case, `www`
    /// prefixes, trailing dots, ports, dot-like segments, trailing slashes, queries in and out of
    /// order, bare and empty arguments.
    static func plainURLs(_ count: Int) -> [String] {
        var generator = SeededGenerator(seed: 9)
        func pick(_ choices: [String]) -> String { choices[generator.next(choices.count)] }
        return (0..<count).map { _ in
            pick(["http://", "https://", "HTTPS://", "ftp://", "x:/"])
                + pick(["www.", "WWW2.", "", "www.www.", "wwwx.", "www1a.", "."])
                + pick(["Example.COM", "a.b.org", "127.0.0.1", "x", "x..", "a..b", ""])
                + pick(["", ":80", ":443", ":8080", ":", ":0443"])
                + (0..<generator.next(4)).map { _ in "/" + pick(["A", "", ".", "..", "...", ".a", "b.", "C;d"]) }
                .joined()
                + pick([
                    "", "/", "?", "?&", "?b=2&a=1", "?a=1&b=2", "?a&a=", "?a=&a", "?A=2&a=1", "?a=1&a=1", "?q", "?&a",
                ])
        }
    }

    @Test func thePlainPathGivesTheGeneralPathsKeys() {
        var plain = 0
        let urls = Self.cases.map(\.0) + Self.randomURLs(2_000) + Self.plainURLs(20_000)
        for url in urls {
            var text = url
            guard let key = text.withUTF8({ SURT.plainKey($0) }) else {
                continue
            }
            plain += 1
            #expect(key == SURT.generalKeyBytes(url), "\(url)")
        }
        // Both paths are taken often.
        #expect(plain > urls.count / 4 && plain < urls.count * 3 / 4, "\(plain) of \(urls.count)")
    }

    @Test func keysAgreeWithTheSurtPackage() throws {
        let urls =
            Self.cases.map(\.0) + Self.randomURLs(600) + [
                "http://example.com/%25%32%35", "http://a.b.c.example.org:80/x/./y/?b&a=1&a",
                "https://www.EXAMPLE.com:8443/",
                "http://example.com/ümlaut?ä=1", "http://example.com/a#b?c", "http://www.example.com/?",
                "http://Bücher.example/ä", "http://www.例え.テスト:8080/x", "https://ÉCOLE.fr/",
                // The ASCII path's edges.
                "HTTP://Example.COM:80/A", "HTTPS://example.com:443", "ftp://example.com:21/f", "http://example.com:/a",
                "http://[::1]/a", "http://www.example.com#x", "http://www.www.com/", "http://www12.example.com/",
                "http://u@www.example.com:8080?b=2&a", "mailto:someone@example.com",
                "http://exa\tmple.com/a\tb?c\t=1",
            ]
        let expected: [String]
        do {
            expected = try OutsideReader.surt(urls)
        } catch let skipped as OutsideReader.Unavailable {
            print("BatchFetchWARCTests: surt comparison skipped: \(skipped)")
            return
        }
        #expect(expected.count == urls.count)
        for (url, key) in zip(urls, expected) {
            #expect(SURT.key(url) == key, "\(url)")
        }
    }
}

struct CDXJLineTests {
    @Test func mediaTypeIsTheTypeBeforeItsParametersTrimmedAndLowercased() {
        let cases = [
            ("text/HTML; charset=utf-8", "text/html"), (" \tApplication/JSON \t", "application/json"), ("", ""),
            (";x=1", ""), ("image/png", "image/png"), ("TEXT/Ä ;q", "text/ä"),
        ]
        for (value, type) in cases {
            #expect(CDXJLine.mediaType(of: value) == type, "\(value)")
        }
    }

    @Test func lineIsWrittenAsPywbWritesIt() {
        let line = CDXJLine(
            url: "http://www.example.com/\"é",
            date: WARCDate(seconds: 1_795_946_400),
            mime: "text/html",
            status: 200,
            digest: "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
            placement: WARCWriter.Placement(offset: 338, length: 320),
            filename: "a.warc.gz"
        )
        #expect(
            line.text == #"com,example)/"%c3%a9 20261129100000 {"url": "http://www.example.com/\"\u00e9", "#
                + #""mime": "text/html", "status": "200", "digest": "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", "#
                + #""length": "320", "offset": "338", "filename": "a.warc.gz"}"#
        )
        #expect(CDXJLine.jsonString("\u{1}😀") == #""\u0001\ud83d\ude00""#)
    }
}

struct CompressedBodyTests {
    /// Which responses' records are stored rather than deflated: a content coding other than
    /// identity, or a media type whose formats compress (not SVG), names compared in any case.
    @Test func aBodyIsCompressedByItsCodingOrItsType() {
        let cases: [(String, Bool)] = [
            ("Content-Encoding: gzip\r\n", true), ("content-encoding:  IDENTITY \r\n", false),
            ("Content-Encoding: \r\n", false), ("CONTENT-ENCODING: br\r\n", true),
            ("Content-Type: image/jpeg\r\n", true), ("Content-Type: Image/SVG+xml\r\n", false),
            ("Content-Type: application/json\r\n", false), ("Content-Type: application/zip; x=1\r\n", true),
            ("Cache-Control: no-store\r\nContent-Type: VIDEO/mp4\r\n", true), ("", false), ("X: y\r\n", false),
            ("Content-Typo: image/png\r\n", false), ("Date: x\r\nContent-Length: 3\r\n", false),
        ]
        for (fields, compressed) in cases {
            #expect(WARCArchive.isCompressed(Array(fields.utf8)) == compressed, "\(fields)")
        }
    }
}
