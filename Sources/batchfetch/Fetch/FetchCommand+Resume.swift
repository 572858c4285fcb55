import ArgumentParser
import BatchFetch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The file beside `fetch -o FILE` (`FILE.batchfetch.json`) that says which input and which request
/// options made FILE, so that `--resume` never mixes the records of two different runs. A file of
/// its own: a line among the records would be read by every pipeline that reads them.
struct ResumeSidecar: Codable, Equatable {
    /// What the file is, for a person who finds it.
    var about = "batchfetch fetch: the input and options that wrote the records file beside it, for --resume"
    var version = 1
    /// Where the input came from, for messages: "-i urls.txt", "3 URL arguments".
    var input: String
    /// SHA-256 of the input: each URL argument and a newline, then the bytes of `-i FILE`.
    var inputSHA256: String
    /// SHA-256 of the options that shape the requests sent and the records written.
    var optionsSHA256: String

    enum CodingKeys: String, CodingKey {
        case about, version, input
        case inputSHA256 = "input_sha256"
        case optionsSHA256 = "options_sha256"
    }

    static func path(for output: String) -> String {
        output + ".batchfetch.json"
    }
}

/// The parts of `fetch -o FILE --resume` that the command holds: the sidecar, the kept records,
/// and the file that replaces FILE when the run ends.
extension FetchCommand {
    /// Where a resumed run writes before it replaces FILE: FILE stays whole until then.
    static func resumingPath(for output: String) -> String {
        output + ".resuming"
    }

    /// The sidecar this run's input and options give; `nil` when there is none to write: records
    /// on standard output or a special file, or URLs from standard input (which cannot be read again).
    func sidecar() throws -> ResumeSidecar? {
        guard let output = self.output, output != "-", Self.isRegularOrMissing(output) else {
            return nil
        }
        var input = Data()
        var names: [String] = []
        for url in self.urls {
            input.append(contentsOf: url.utf8)
            input.append(0x0A)
        }
        if !self.urls.isEmpty {
            names.append(self.urls.count == 1 ? "1 URL argument" : "\(self.urls.count) URL arguments")
        }
        if let path = self.input {
            guard path != "-" else {
                return nil
            }
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
                return nil  // FetchInput.open says why it cannot be read
            }
            input.append(bytes)
            names.append("-i \(path)")
        }
        guard !names.isEmpty else {
            return nil
        }
        return ResumeSidecar(
            input: names.joined(separator: " and "), inputSHA256: Digest.sha256(input),
            optionsSHA256: Digest.sha256(Data(self.recordShapingOptions.utf8)))
    }

    /// The options that change what is sent or what the records say, as parsed (their order on the
    /// command line does not matter). Concurrency, rates, retries, timeouts, the cache, progress
    /// and stats do not belong: a resumed run may change them.
    private var recordShapingOptions: String {
        let parts: [Any?] = [
            self.body, self.saveDir, self.fileName, self.skipExisting, self.fields, self.contentPath, self.status,
            self.deduplication, self.transport, self.request, self.header, self.userAgent, self.follow,
            self.sharding, self.maxBody,
        ]
        // Only with --robots, so that the files of runs without it keep their sidecars.
        let robots: [Any?] = self.robots.robots == nil ? [] : [self.robots]
        return (parts + robots).map { $0.map { String(describing: $0) } ?? "-" }.joined(separator: "\u{1F}")
    }

    private static func isRegularOrMissing(_ path: String) -> Bool {
        guard let identity = FileIdentity(path: path) else {
            return errno == ENOENT
        }
        return identity.isRegularFile
    }

    /// What `--resume` keeps of FILE (nothing without the flag, or when FILE is not there yet),
    /// after checking that FILE was made from this input with these options.
    /// - Throws: ``ExitCode/usage``, having said why, when it was not, or cannot be read.
    func keptRecords(sidecar: ResumeSidecar?) throws -> KeptRecords {
        guard self.resume, let output = self.output, FileManager.default.fileExists(atPath: output) else {
            return .none
        }
        let refuse = { (reason: String) throws -> Never in
            FileHandleOutput.standardError.write("batchfetch: --resume: \(reason)\n")
            throw ExitCode.usage
        }
        guard let sidecar else {
            try refuse("\(output) is not a regular file, or the input is standard input, which cannot be read again")
        }
        let sidecarPath = ResumeSidecar.path(for: output)
        guard let data = FileManager.default.contents(atPath: sidecarPath),
            let written = try? JSONDecoder().decode(ResumeSidecar.self, from: data)
        else {
            try refuse(
                "\(sidecarPath) is missing or unreadable, so nothing says which input wrote \(output); "
                    + "run without --resume to start over")
        }
        if written.inputSHA256 != sidecar.inputSHA256 {
            try refuse(
                "\(output) was written from another input (\(written.input)) than this run's (\(sidecar.input)); "
                    + "give the same input, or run without --resume to start over")
        }
        if written.optionsSHA256 != sidecar.optionsSHA256 {
            try refuse(
                "\(output) was written with other request or record options (method, headers, body, --fields, "
                    + "--body, --status, --shard, …); give the same ones, or run without --resume to start over")
        }
        do throws(KeptRecords.Refusal) {
            return try KeptRecords.read(path: output)
        } catch {
            try refuse(error.description)
        }
    }

    /// Writes the sidecar beside FILE. A run that cannot write it still runs; it says so, since
    /// `--resume` will then refuse.
    func write(_ sidecar: ResumeSidecar?) {
        guard let sidecar, let output = self.output else {
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(sidecar).write(
                to: URL(fileURLWithPath: ResumeSidecar.path(for: output)), options: .atomic)
        } catch {
            FileHandleOutput.standardError.write(
                "batchfetch: warning: cannot write \(ResumeSidecar.path(for: output)) (--resume will refuse): "
                    + "\(error.localizedDescription)\n")
        }
    }

    /// Puts the resumed run's file in FILE's place, when it holds every kept record and its writes
    /// all succeeded; otherwise leaves FILE as it was and says so. - Returns: whether it did.
    func replaceOutput(kept: KeptRecords, sink: FileHandleOutput) -> Bool {
        guard let output = self.output else {
            return false
        }
        let resuming = Self.resumingPath(for: output)
        if kept.copiedAll && sink.failure == nil && rename(resuming, output) == 0 {
            return true
        }
        unlink(resuming)
        FileHandleOutput.standardError.write(
            "batchfetch: --resume: \(output) left as it was: the records fetched now could not all be written\n")
        return false
    }
}
