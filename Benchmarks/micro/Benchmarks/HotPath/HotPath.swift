import BatchFetch
import Benchmark

// The per-request work batchfetch does outside libcurl that exists so far: validating each input
// URL before it takes a transfer slot, redacting each URL written into a record, and reading a
// header field of each response. (Envelope decoding, the reassembler and the NDJSON writer get
// theirs when they exist as library code; the record writer lives in the executable target, which
// another package cannot import.) Each benchmark does 1,000 operations per iteration: divide the
// time per iteration by 1,000 for the cost per request, and compare it with the ~20 µs of CPU a
// whole request costs on the bare curl_multi loop.

let urls = (0..<1000).map { "http://127.0.0.1:8080/api/json/v1/1/lookup.php?i=\(11000 + $0)" }
let secretURLs = (0..<1000).map { "https://user:pw@api.example.com/v1/items?id=\($0)&api_key=abcdef0123456789" }

// What nginx sends with a lookup document, as libcurl hands the header block over.
let nginxHeaderBlock = Array(
    """
    HTTP/1.1 200 OK\r
    Server: nginx/1.22.1\r
    Date: Sat, 21 Nov 2026 13:00:00 GMT\r
    Content-Type: application/json\r
    Content-Length: 2227\r
    Last-Modified: Sat, 21 Nov 2026 12:59:00 GMT\r
    Connection: keep-alive\r
    ETag: "6741fb24-8b3"\r
    Accept-Ranges: bytes\r
    \r

    """.utf8)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        maxDuration: .seconds(3),
        maxIterations: 10_000
    )

    Benchmark("Request(url).validate() ×1000") { benchmark in
        for _ in benchmark.scaledIterations {
            for url in urls {
                blackHole(Request(url).validate())
            }
        }
    }

    Benchmark("String.redactedURL, nothing to hide ×1000") { benchmark in
        for _ in benchmark.scaledIterations {
            for url in urls {
                blackHole(url.redactedURL)
            }
        }
    }

    Benchmark("String.redactedURL, password and api_key ×1000") { benchmark in
        for _ in benchmark.scaledIterations {
            for url in secretURLs {
                blackHole(url.redactedURL)
            }
        }
    }

    Benchmark("HTTPHeaders[\"content-type\"] on nginx's headers ×1000") { benchmark in
        let headers = HTTPHeaders(raw: nginxHeaderBlock)
        for _ in benchmark.scaledIterations {
            for _ in 0..<1000 {
                blackHole(headers["content-type"])
            }
        }
    }
}
