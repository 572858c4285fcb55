import Testing

@testable import BatchFetch

/// One host, one key, however a URL spells it (issue 51).
struct HostKeyTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/x", "127.0.0.1:8080"),
        ("http://api.test/x?y=1", "api.test"),
        ("http://Bücher.Test./x", "xn--bcher-kva.test"),
        ("http://BÜCHER.test/x", "xn--bcher-kva.test"),
        ("http://xn--bcher-kva.test:80/x", "xn--bcher-kva.test"),
        ("https://h.test:443/", "h.test"),
        ("https://h.test:80/", "h.test:80"),
        ("http://h.test:443/", "h.test:443"),
        ("http://user:secret@H.test:8080/", "h.test:8080"),
        ("http://h.test:/", "h.test"),
        ("http://[::1]:80/", "[::1]"),
        ("http://[::1]:8080/", "[::1]:8080"),
        ("http://b%C3%BCcher.test/", "xn--bcher-kva.test"),
    ])
    func aURLsHostKeyIsItsNormalForm(url: String, key: String) {
        #expect(HostKey.of(url) == key)
    }

    @Test func aRulesHostTakesTheSameFormWithoutADefaultPort() {
        #expect(HostKey.ofRule("Bücher.test:80") == "xn--bcher-kva.test")
        #expect(HostKey.ofRule("h.test:443") == "h.test")
        #expect(HostKey.ofRule("h.test:8080") == "h.test:8080")
        #expect(HostKey.ofRule("[::1]") == "[::1]")
    }

    @Test func rulesApplyToEverySpellingOfTheirHost() throws {
        let limits = try Engine.HostLimits(parsingRates: "BÜCHER.test=2/s,*=9/s")
        #expect(limits.rate(forHostKey: HostKey.of("http://xn--bcher-kva.test:80/a")) == 2)
        #expect(limits.rate(forHostKey: HostKey.of("http://bücher.test./a")) == 2)
        #expect(limits.rate(forHostKey: HostKey.of("http://other.test/a")) == 9)
    }
}
