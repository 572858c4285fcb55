import Foundation

/// pywb's replay of WARC files, through `scripts/warc-check replay`: what a user's wayback would
/// send for each URL in identity mode (`/COLL/id_/URL`, the archived bytes with nothing rewritten).
///
/// The script runs through ``WARCCheckScript``. It blocks while pywb indexes the
/// files, starts and answers (several seconds), so call it from a test, never from the engine's
/// thread.
package enum ReplayReader {
    /// What pywb answered for one URL (scripts/warc.d/replay.py).
    package struct Answer: Decodable, Sendable {
        /// The URL asked for.
        package let url: String
        /// The request's path: `/COLL/id_/URL`.
        package let path: String
        /// pywb's status code, `nil` when no answer came (see ``error``).
        package let status: Int?
        /// pywb's reason phrase.
        package let reason: String?
        /// The header fields pywb sent, in order, as `[name, value]`: the archived ones it kept
        /// (those it renamed appear as `X-Archive-Orig-…`) and its own (`Memento-Datetime`, `Link`, …).
        package let headers: [[String]]
        /// The body's length in bytes as received (pywb's chunked framing removed, nothing decoded).
        package let length: Int
        /// The body's SHA-256, lower-case hex.
        package let sha256: String?
        /// The body, base64.
        package let body: String?
        /// Why no answer came, or `nil`.
        package let error: String?

        /// The body bytes as received.
        package var bodyBytes: [UInt8] {
            self.body.map { [UInt8](base64: $0) } ?? []
        }

        /// The value of the first header field named `name` (compared without regard to case).
        package func header(_ name: String) -> String? {
            self.headerValues(name).first
        }

        /// The values of every header field named `name` (compared without regard to case), in order.
        package func headerValues(_ name: String) -> [String] {
            let wanted = name.lowercased()
            return self.headers.compactMap { $0.count == 2 && $0[0].lowercased() == wanted ? $0[1] : nil }
        }
    }

    package typealias Unavailable = WARCCheckScript.Unavailable
    package typealias Failure = WARCCheckScript.Failure

    /// pywb's answers for `urls`, in order, with `warcs` in its collection; `nil` (said on standard
    /// output) when pip could not install pywb and ``WARCCheckScript/required`` is off.
    ///
    /// - Parameters:
    ///   - acceptEncoding: the requests' `Accept-Encoding` (the script's default, `gzip, deflate`,
    ///     when `nil`): pywb decodes a stored gzip body for a client that does not accept gzip.
    ///   - timeLimit: seconds after which the server is killed, answered or not (the script's
    ///     default, 60, when `nil`).
    /// - Throws: ``Failure`` when the script fails or does not answer every URL; ``Unavailable``
    ///   when pip could not install pywb and ``WARCCheckScript/required`` is on.
    package static func replay(
        _ warcs: [String],
        urls: [String],
        acceptEncoding: String? = nil,
        timeLimit: Int? = nil
    ) throws -> [Answer]? {
        do {
            return try self.answers(warcs, urls: urls, acceptEncoding: acceptEncoding, timeLimit: timeLimit)
        } catch let skipped as Unavailable where !WARCCheckScript.required {
            print("ReplayReader: pywb replay skipped: \(skipped)")
            return nil
        }
    }

    /// pywb's answers for `urls`, in order, with `warcs` in its collection.
    ///
    /// - Throws: ``Unavailable`` when pip could not install pywb; ``Failure`` when the script
    ///   fails or does not answer every URL.
    package static func answers(
        _ warcs: [String],
        urls: [String],
        acceptEncoding: String? = nil,
        timeLimit: Int? = nil
    ) throws -> [Answer] {
        var arguments = ["replay"]
        if let acceptEncoding {
            arguments += ["--accept-encoding", acceptEncoding]
        }
        if let timeLimit {
            arguments += ["--time-limit", String(timeLimit)]
        }
        arguments += warcs + ["--"] + urls
        let output = try WARCCheckScript.run(arguments)
        let lines = output.split(separator: "\n").filter { !$0.isEmpty }
        let answers = try lines.map { try JSONDecoder().decode(Answer.self, from: Data($0.utf8)) }
        guard answers.map(\.url) == urls else {
            throw Failure(description: "scripts/warc-check replay answered \(answers.map(\.url)) for \(urls)")
        }
        return answers
    }
}
