import ArgumentParser
import BatchFetch
import Foundation

/// `fetch`'s flags for what each request is, spelled as curl spells them: the method, the body,
/// credentials, cookies, and how input lines are read. They apply to every request; a JSON
/// request line's own fields win.
struct RequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("X"), .customLong("method")],
        help: "The method, any token sent as given (GET, PUT, PROPFIND…; default GET, or POST with a body).")
    var method: String?

    @Flag(
        name: [.customShort("I"), .customLong("head")],
        help: "Send HEAD requests and add each response's headers to its record (what curl -I shows).")
    var head = false

    @Option(
        name: [.customShort("d"), .customLong("data")],
        help: ArgumentHelp(
            "Send this body, or @FILE's bytes without CR/LF, form-encoded unless -H sets Content-Type; repeats join with &.",
            valueName: "STRING|@FILE"))
    var data: [String] = []

    @Option(
        name: .customLong("data-binary"),
        help: ArgumentHelp(
            "Send this body as it is; @FILE alone is streamed from disk, never held in memory.",
            valueName: "STRING|@FILE"))
    var dataBinary: [String] = []

    @Option(
        name: .customLong("json"),
        help: ArgumentHelp(
            "Send this JSON body with Content-Type and Accept: application/json, as curl's --json.",
            valueName: "STRING|@FILE"))
    var json: String?

    @Option(
        name: [.customShort("u"), .customLong("user")],
        help: ArgumentHelp(
            "HTTP Basic credentials (never written to records, messages or --stats).", valueName: "USER:PASSWORD"))
    var user: String?

    @Option(
        name: [.customShort("b"), .customLong("cookie")],
        help: ArgumentHelp(
            "Send 'name=value; …' with every request, or start the batch's cookie jar from FILE "
                + "(Netscape format; a missing FILE is empty, as in curl). Repeatable.",
            valueName: "STRING|FILE"))
    var cookie: [String] = []

    @Option(
        name: .customLong("cookie-jar"),
        help: ArgumentHelp(
            "Keep the cookies servers set for the whole batch, and write them all to FILE at the end.",
            valueName: "FILE"))
    var cookieJar: String?

    @Option(
        help: """
            Input lines: auto (a line starting with { is a JSON request, any other a URL), urls, jsonl, \
            or vegeta (its JSON targets).
            """)
    var inputFormat: InputFormat = .auto

    @Flag(
        help: """
            Retry POST and PATCH like other methods. Default: only where the server certainly did not \
            process them (no connection, 429, 503 with Retry-After).
            """)
    var retryAllMethods = false

    func validate() throws {
        if self.head {
            if let method = self.method, method != "HEAD" {
                throw ValidationError("-I/--head sends HEAD requests: it cannot be combined with -X \(method)")
            }
            if !self.data.isEmpty || !self.dataBinary.isEmpty || self.json != nil {
                throw ValidationError("-I/--head sends no body: drop -d/--data, --data-binary and --json")
            }
        }
        _ = try self.template(fields: [])
        _ = try RequestTemplate.fields([], json: self.json != nil, user: self.user)
        if self.cookie.contains(where: { $0.contains("=") && $0.utf8.contains(where: { $0 < 0x20 }) }) {
            throw ValidationError("-b/--cookie: cookies must not contain control characters")
        }
    }

    /// The defaults every request gets, given the engine's fields (`-H` and what ``apply(to:)`` adds).
    func template(fields: [HeaderField]) throws -> RequestTemplate {
        var template = try RequestTemplate(
            method: self.head ? "HEAD" : self.method, data: self.data, dataBinary: self.dataBinary, json: self.json)
        template.fieldsGiveContentType = fields.contains {
            $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame
        }
        return template
    }

    /// How lines become requests.
    func lines(fields: [HeaderField]) throws -> LineRequests {
        LineRequests(format: self.inputFormat, template: try self.template(fields: fields))
    }

    /// Adds what these flags set on the engine: `--json`'s and `-u`'s fields (after `-H`'s,
    /// which win), cookies, and retrying every method.
    func apply(to configuration: inout Engine.Configuration) throws {
        configuration.headers = try RequestTemplate.fields(
            configuration.headers, json: self.json != nil, user: self.user)
        let literal = self.cookie.filter { $0.contains("=") }
        let files = self.cookie.filter { !$0.contains("=") }
        if !self.cookie.isEmpty || self.cookieJar != nil {
            configuration.cookies = Engine.Cookies(
                header: literal.isEmpty ? nil : literal.joined(separator: "; "), files: files, jar: self.cookieJar)
        }
        configuration.retry.retriesAllMethods = self.retryAllMethods
    }
}
