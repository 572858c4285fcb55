import ArgumentParser
import BatchFetch
import Foundation

/// What the request flags give every request, as curl spells them: `-X`'s method and the body of
/// `-d`, `--data-binary` or `--json`. A JSON request line's own fields win over them.
struct RequestTemplate: Sendable {
    /// `-X`; without it GET, or POST when there is a body (curl's rule).
    var method: Request.Method?
    /// The body held in memory.
    var body: [UInt8]?
    /// The body streamed from a file (`--data-binary @FILE`, `--json @FILE`).
    var bodyFile: String?
    /// Whether the engine's fields (`-H`, `--json`) already give a `Content-Type`: a line's JSON
    /// `body` then adds none of its own.
    var fieldsGiveContentType = false

    /// No method and no body: requests are left as they are read.
    var isEmpty: Bool {
        self.method == nil && self.body == nil && self.bodyFile == nil
    }

    /// Sets the method and body of a URL line's request.
    func apply(to request: inout Request) {
        request.method = self.method ?? (self.body != nil || self.bodyFile != nil ? .post : .get)
        request.body = self.body
        request.bodyFile = self.bodyFile
    }

    /// The request a valid JSON line asks for, the flags filling in what it does not say.
    func request(for line: RequestLine) -> Request {
        var request = Request(line.url ?? "", headers: line.headers, body: self.body, bodyFile: self.bodyFile)
        switch line.body {
        case .bytes(let bytes):
            request.body = bytes
            request.bodyFile = nil
        case .json(let bytes):
            request.body = bytes
            request.bodyFile = nil
            let named = line.headers.contains { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }
            if !named && !self.fieldsGiveContentType {
                request.headers.append(HeaderField(name: "Content-Type", value: "application/json"))
            }
        case .file(let path):
            request.body = nil
            request.bodyFile = path
        case nil:
            break
        }
        request.method = line.method ?? self.method ?? (request.body != nil || request.bodyFile != nil ? .post : .get)
        return request
    }
}

extension RequestTemplate {
    /// Reads the flags. - Throws: `ValidationError` for a method that is not a token, bodies
    /// of two kinds, or a body file that cannot be read.
    init(method: String?, data: [String], dataBinary: [String], json: String?) throws {
        if let method {
            guard let known = Request.Method(rawValue: method) else {
                throw ValidationError("-X/--method: \(Request.Method.problem(with: method))")
            }
            self.method = known
        }
        let kinds = [!data.isEmpty, !dataBinary.isEmpty, json != nil].filter { $0 }.count
        guard kinds <= 1 else {
            throw ValidationError("give the body with one of -d/--data, --data-binary or --json")
        }
        if let json {
            try self.setBody([json], joinedBy: [], flag: "--json", stripLineBreaks: false)
        } else if !dataBinary.isEmpty {
            try self.setBody(dataBinary, joinedBy: [UInt8(ascii: "&")], flag: "--data-binary", stripLineBreaks: false)
        } else if !data.isEmpty {
            try self.setBody(data, joinedBy: [UInt8(ascii: "&")], flag: "-d/--data", stripLineBreaks: true)
        }
    }

    /// Pieces as curl joins them: several with `&`; `@FILE` is the file's bytes, streamed from
    /// disk when it is the only piece and kept as it is.
    private mutating func setBody(
        _ pieces: [String], joinedBy separator: [UInt8], flag: String, stripLineBreaks: Bool
    ) throws {
        if pieces.count == 1, !stripLineBreaks, pieces[0].hasPrefix("@") {
            let path = String(pieces[0].dropFirst())
            try Self.checkReadable(path, flag: flag)
            self.bodyFile = path
            return
        }
        var body: [UInt8] = []
        for (number, piece) in pieces.enumerated() {
            if number > 0 {
                body += separator
            }
            guard piece.hasPrefix("@") else {
                body += Array(piece.utf8)
                continue
            }
            let path = String(piece.dropFirst())
            try Self.checkReadable(path, flag: flag)
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("\(flag): cannot read \(path)")
            }
            // curl's -d drops CR and LF from a file, so that a file of form fields can end lines.
            body += stripLineBreaks ? contents.filter { $0 != 0x0D && $0 != 0x0A } : Array(contents)
        }
        self.body = body
    }

    private static func checkReadable(_ path: String, flag: String) throws {
        if path == "-" {
            throw ValidationError("\(flag) @-: standard input carries the requests; put the body in a file")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw ValidationError("\(flag): cannot read \(path) (no such file, a folder, or no permission)")
        }
    }

    /// The engine's fields with what `--json` and `-u` add, unless `-H` gave them already:
    /// `Content-Type` and `Accept: application/json`, and `Authorization: Basic …`.
    static func fields(
        _ fields: [HeaderField], json: Bool, user: String?
    ) throws -> [HeaderField] {
        var fields = fields
        let has: (String) -> Bool = { name in
            fields.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }
        if json {
            for name in ["Content-Type", "Accept"] where !has(name) {
                fields.append(HeaderField(name: name, value: "application/json"))
            }
        }
        if let user, !has("Authorization") {
            // Never echoed: the value is a credential (and `HeaderField` prints it redacted).
            guard user.contains(":") else {
                throw ValidationError("-u/--user takes USER:PASSWORD (batchfetch cannot ask for the password)")
            }
            fields.append(HeaderField(name: "Authorization", value: "Basic " + Data(user.utf8).base64EncodedString()))
        }
        return fields
    }
}
