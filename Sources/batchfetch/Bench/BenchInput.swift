import ArgumentParser
import BatchFetch
import Foundation

/// The URLs `batchfetch bench` cycles over, read whole before the run starts (a bench repeats
/// them, so they are held in memory; reading them cannot then disturb the measurement).
enum BenchInput {
    /// The requests for the URL arguments followed by the lines of `file` (`-` = standard input),
    /// skipping blank lines and `#` comments; a line starting with `{` is a JSON request
    /// (``RequestLine``, its `id` and `meta` unused), and `template` gives every request the
    /// request flags' defaults.
    ///
    /// - Throws: `ValidationError` (exit 2) for a request that cannot be sent, naming its line, or
    ///   when there is none; ``ExitCode/usage`` when the file cannot be read.
    static func requests(arguments: [String], file: String?, template: RequestTemplate = RequestTemplate()) throws
        -> [Request]
    {
        var lines = arguments.map { (source: "argument", text: $0) }
        if let path = file {
            var reader: LineReader
            do {
                reader = try LineReader(path: path)
            } catch {
                FileHandleOutput.standardError.write("batchfetch: \(error)\n")
                throw ExitCode.usage
            }
            var number = 0
            while let line = reader.next() {
                number += 1
                lines.append((source: "\(path == "-" ? "standard input" : path):\(number)", text: line))
            }
            if let error = reader.readError {
                let name = path == "-" ? "standard input" : path
                FileHandleOutput.standardError.write(
                    "batchfetch: cannot read \(name): \(String(cString: strerror(error)))\n")
                throw ExitCode.usage
            }
        }
        var requests: [Request] = []
        for line in lines {
            let text = Self.trimmed(line.text)
            if text.isEmpty || text.hasPrefix("#") {
                continue
            }
            var request = Request(text)
            if text.hasPrefix("{") {
                var bytes = text
                let parsed = bytes.withUTF8 { RequestLine(parsing: UnsafeRawBufferPointer($0), format: .batchfetch) }
                if let problem = parsed.problem {
                    throw ValidationError("\(line.source): \(problem.message)")
                }
                request = template.request(for: parsed)
            } else if !template.isEmpty {
                template.apply(to: &request)
            }
            if let error = request.validate() {
                throw ValidationError("\(line.source): \(error.message)")
            }
            requests.append(request)
        }
        if requests.isEmpty {
            throw ValidationError("no URLs to request\(file.map { " in \($0)" } ?? "")")
        }
        return requests
    }

    private static func trimmed(_ text: String) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) })
        else {
            return ""
        }
        return String(text[first...last])
    }
}
