import ArgumentParser
import BatchFetch

/// `bench`'s request flags: `fetch`'s (see ``RequestOptions``) where bench's own names leave room,
/// so `--data` has no `-d` (bench's duration) and there is no `--json` body (bench's report).
struct BenchRequestOptions: ParsableArguments {
    @Option(
        name: [.customShort("X"), .customLong("method")],
        help: "The method, any token sent as given (GET, PUT, PROPFIND…; default GET, or POST with a body).")
    var method: String?

    @Option(
        name: [.customShort("H"), .long],
        help: "Extra header 'Name: value' on every request (repeatable; CR/LF refused).")
    var header: [String] = []

    @Option(
        name: .customLong("data"),
        help: ArgumentHelp(
            "Send this body, or @FILE's bytes without CR/LF, form-encoded unless -H sets Content-Type.",
            valueName: "STRING|@FILE"))
    var data: [String] = []

    @Option(
        name: .customLong("data-binary"),
        help: ArgumentHelp(
            "Send this body as it is; @FILE alone is read from disk for each request.", valueName: "STRING|@FILE"))
    var dataBinary: [String] = []

    @Option(
        name: [.customShort("u"), .customLong("user")],
        help: ArgumentHelp("HTTP Basic credentials (never printed).", valueName: "USER:PASSWORD"))
    var user: String?

    func validate() throws {
        _ = try self.template()
        _ = try self.fields()
    }

    func template() throws -> RequestTemplate {
        var template = try RequestTemplate(method: self.method, data: self.data, dataBinary: self.dataBinary, json: nil)
        template.fieldsGiveContentType = try self.fields().contains {
            $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame
        }
        return template
    }

    /// `-H`'s fields, and `-u`'s.
    func fields() throws -> [HeaderField] {
        var fields: [HeaderField] = []
        for line in self.header {
            do throws(FetchError) {
                fields.append(try HeaderField(parsing: line))
            } catch {
                throw ValidationError(error.message)
            }
        }
        return try RequestTemplate.fields(fields, json: false, user: self.user)
    }
}
