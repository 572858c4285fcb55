import Testing

@testable import BatchFetch

struct RequestTests {
    @Test func httpAndHTTPSURLsAreAccepted() {
        for url in [
            "http://127.0.0.1:8080/a?b=c", "https://example.org", "HTTP://host/", "hTtPs://host",
            "http://user:pw@host/x",
            "http://a@b@host:1/",
        ] {
            #expect(Request(url).validate() == nil, "\(url)")
        }
    }

    @Test func badURLsAreRejectedWithTheRightKind() {
        let cases: [(String, FetchError.Kind)] = [
            ("", .invalidURL),
            ("not a url", .invalidURL),
            ("example.org/path", .invalidURL),
            ("http:/host", .invalidURL),
            ("http://", .invalidURL),
            ("http://:80/", .invalidURL),
            ("http://host/\u{0}", .invalidURL),
            ("file:///etc/passwd", .unsupportedScheme),
            ("ftp://host/file", .unsupportedScheme),
            ("gopher://host/", .unsupportedScheme),
            ("javascript:alert(1)", .unsupportedScheme),
            ("httpx://host/", .unsupportedScheme),
            ("htt://host/", .unsupportedScheme),
            ("httpss://host/", .unsupportedScheme),
            ("1http://host/", .invalidURL),
            ("http://user@/x", .invalidURL),
            ("http://user@:80/x", .invalidURL),
        ]
        for (url, kind) in cases {
            #expect(Request(url).validate()?.kind == kind, "\(url)")
        }
        #expect(Request("http://h/" + String(repeating: "a", count: 9000)).validate()?.kind == .invalidURL)
    }

    @Test func headerFieldsAreParsedAndCheckedForInjection() throws {
        let field = try HeaderField(parsing: "X-Api-Key:  secret ")
        #expect(field.name == "X-Api-Key")
        #expect(field.value == "secret ")
        #expect(field.description == "X-Api-Key: [redacted]")
        #expect(throws: FetchError.self) { try HeaderField(parsing: "no colon") }
        #expect(throws: FetchError.self) { try HeaderField(parsing: "Bad Name: x") }
        #expect(HeaderField(name: "X", value: "a\nb").validationError()?.kind == .invalidHeader)
        #expect(HeaderField(name: "X", value: "a\rb").validationError()?.kind == .invalidHeader)
    }

    @Test func aBareNameRemovesAndASemicolonSendsAnEmptyValueAsInCurl() throws {
        #expect(try HeaderField(parsing: "Accept:") == .removal("Accept"))
        #expect(try HeaderField(parsing: "Accept: \t") == .removal("Accept"))
        #expect(try HeaderField(parsing: "X-Empty;") == HeaderField(name: "X-Empty", value: ""))
        #expect(try HeaderField(parsing: "X-Empty;").removes == false)
        #expect(try HeaderField(parsing: "X-A: b;") == HeaderField(name: "X-A", value: "b;"))
        #expect(throws: FetchError.self) { try HeaderField(parsing: "X-Half;value") }
        #expect(throws: FetchError.self) { try HeaderField(parsing: ";") }
    }

    @Test func methodsAreTokensSentAsGivenAndOnlyRFC9110sAreIdempotent() {
        for text in ["PROPFIND", "QUERY", "put", "M-SEARCH", "GET"] {
            #expect(Request.Method(rawValue: text)?.rawValue == text)
        }
        for text in ["", "GET /", "PUT\r\n", "A\tB", "DÉL"] {
            #expect(Request.Method(rawValue: text) == nil, "\(text)")
        }
        #expect(Request.Method(rawValue: "PUT") == .put)
        #expect(Request.Method.put.isIdempotent && Request.Method.delete.isIdempotent)
        #expect(!Request.Method(rawValue: "put")!.isIdempotent, "methods are case-sensitive")
        #expect(!Request.Method(rawValue: "PROPFIND")!.isIdempotent && !Request.Method.patch.isIdempotent)
    }

    @Test func credentialsAreRedactedFromURLs() {
        #expect("http://user:pw@host/x".redactedURL == "http://user:***@host/x")
        #expect("https://h/p?api_key=abc&c=Cocktail".redactedURL == "https://h/p?api_key=***&c=Cocktail")
        #expect("https://h/p?c=Shot#frag".redactedURL == "https://h/p?c=Shot#frag")
        let presigned = "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ab12&X-Amz-Expires=60"
        #expect(
            presigned.redactedURL
                == "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=***&X-Amz-Expires=60")
        for name in [
            "key", "TOKEN", "api_key", "ApiKey", "access_token", "password", "secret", "sig", "signature",
            "client_secret", "refresh_token", "X-Amz-Signature", "x-amz-security-token",
        ] {
            #expect("https://h/p?i=1&\(name)=v&x=2".redactedURL == "https://h/p?i=1&\(name)=***&x=2", "\(name)")
        }
        for name in ["keys", "tokens", "signatures", "k", "client_id", "X-Amz-Credential", "X-Amz-Expires"] {
            #expect("https://h/p?\(name)=v".redactedURL == "https://h/p?\(name)=v", "\(name)")
        }
    }
}

struct RequestInternationalHostTests {
    @Test func internationalHostsAndPathsAreValid() {
        for url in ["http://exämple.test/x", "http://127.0.0.1/pä?q=ü", "https://例え。テスト/"] {
            #expect(Request(url).validate() == nil, "\(url)")
        }
    }

    /// Refused before a transfer slot is taken, with the reason, where libcurl would say only
    /// "malformed URL" after trying.
    @Test func hostsWithoutAnASCIIFormAreRefusedWithTheReason() {
        let error = Request("http://ab--ä.test/").validate()
        #expect(error?.kind == .invalidURL)
        #expect(error?.message.contains("label 'ab--ä'") == true, "\(String(describing: error))")
        #expect(Request("http://ä.test/\u{7F}").validate()?.message == "URL contains a space or a control character")
    }
}
