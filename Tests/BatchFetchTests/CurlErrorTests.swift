import Testing

@testable import BatchFetch

struct CurlErrorTests {
    /// Codes from curl.h; the mapping is the one place libcurl's numbers become kinds.
    @Test func libcurlCodesMapToKindsAUserCanActOn() {
        let cases: [(Int, FetchError.Kind)] = [
            (1, .unsupportedScheme), (3, .invalidURL), (6, .dnsFailure), (7, .connectFailed), (28, .timeout),
            (35, .tlsFailure), (60, .tlsFailure), (63, .tooLarge), (47, .tooManyRedirects), (52, .transport),
            (55, .transport), (56, .transport), (18, .transport), (92, .transport), (8, .invalidResponse),
            (61, .invalidResponse), (42, .cancelled), (99, .other),
        ]
        for (code, kind) in cases {
            #expect(FetchError.classify(curlCode: code).0 == kind, "CURLcode \(code)")
        }
    }

    @Test func aDetailThatRepeatsTheSummaryIsSaidOnce() {
        let resolve = FetchError.message("could not resolve host", detail: "Could not resolve host: example.invalid")
        #expect(resolve == "could not resolve host: example.invalid")
        let connect = FetchError.message("could not connect", detail: "Failed to connect to 127.0.0.1 port 1")
        #expect(connect == "could not connect: Failed to connect to 127.0.0.1 port 1")
    }
}
