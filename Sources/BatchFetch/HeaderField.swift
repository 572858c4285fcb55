/// One header field of a request: a name and a value, or a name to leave out.
public struct HeaderField: Sendable, Hashable, CustomStringConvertible {
    /// The field name, e.g. `Accept`.
    public var name: String
    /// The field value; empty for a field sent with no value.
    public var value: String
    /// Whether the field is one to leave out rather than send (curl's `-H 'Name:'`): a field
    /// libcurl or the engine would add (`Accept`, `User-Agent`, …) is then not sent, and the field
    /// itself is not sent either.
    public var removes: Bool

    /// Creates a header field. Validation happens when a request is submitted (see ``Request/validate(maxURLLength:)``).
    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.removes = false
    }

    /// A field that leaves `name` out of the request (``removes``).
    public static func removal(_ name: String) -> HeaderField {
        var field = HeaderField(name: name, value: "")
        field.removes = true
        return field
    }

    /// Parses a field as curl's `-H` does: `Name: value`; `Name:` with nothing after it leaves
    /// `Name` out (``removes``); `Name;` sends `Name` with an empty value.
    ///
    /// - Throws: ``FetchError/Kind/invalidHeader`` when there is neither a colon nor a final
    ///   semicolon, the name is not an RFC 9110 token, or the value holds CR, LF or NUL (header
    ///   injection).
    public init(parsing line: String) throws(FetchError) {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        if let colon = line.firstIndex(of: ":") {
            let value = String(line[line.index(after: colon)...].drop(while: blank))
            self.init(name: String(line[..<colon]), value: value)
            self.removes = value.isEmpty
        } else if let semicolon = line.firstIndex(of: ";"), line[line.index(after: semicolon)...].allSatisfy(blank) {
            self.init(name: String(line[..<semicolon]), value: "")
        } else {
            throw FetchError(
                kind: .invalidHeader,
                message:
                    "header '\(line)' has no ':' (expected 'Name: value', 'Name:' to leave it out, 'Name;' to send it empty)"
            )
        }
        if let error = self.validationError() {
            throw error
        }
    }

    /// Sensitive names whose values are never printed (logs, errors, records).
    package static let redactedNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "x-api-key"]

    /// `Name: value`, with the value of credential-carrying fields replaced by `[redacted]`.
    public var description: String {
        if self.removes {
            return "\(self.name):"
        }
        return HeaderField.redactedNames.contains(self.name.lowercased())
            ? "\(self.name): [redacted]" : "\(self.name): \(self.value)"
    }

    /// Whether `value` holds CR, LF or NUL, which would end the field and inject what follows.
    static func breaksTheHeaderBlock(_ value: String) -> Bool {
        value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 })
    }

    /// Why this field may not be sent, or `nil` when it is valid.
    func validationError() -> FetchError? {
        if self.name.isEmpty || !self.name.utf8.allSatisfy(HeaderField.isTokenByte) {
            return FetchError(
                kind: .invalidHeader,
                message: "header name '\(self.name)' is not a valid token (letters, digits and !#$%&'*+-.^_`|~)"
            )
        }
        if HeaderField.breaksTheHeaderBlock(self.value) {
            return FetchError(
                kind: .invalidHeader,
                message: "header '\(self.name)' has CR, LF or NUL in its value (header injection refused)"
            )
        }
        return nil
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

extension [HeaderField] {
    /// These fields with `fields` added after them, replacing those of the same name (any case).
    func overridden(by fields: [HeaderField]) -> [HeaderField] {
        guard !fields.isEmpty else {
            return self
        }
        let names = Set(fields.map { $0.name.lowercased() })
        return self.filter { !names.contains($0.name.lowercased()) } + fields
    }
}
