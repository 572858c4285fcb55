import ArgumentParser
import BatchFetch
import Foundation

/// `batchfetch fetch`: one JSON line per input URL.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch URLs and write one JSON record per URL (NDJSON), in completion order.",
        discussion: """
            URLs come from the arguments, from -i FILE, or from standard input (-i - or a pipe); one per \
            line, blank lines and lines starting with # skipped. Each record: index (0-based input line \
            among URLs), url, status, ok, attempts, bytes, time_ms, error. Exit status: 0 all ok, 1 some \
            failed, 2 usage or unreadable input.
            """
    )

    @Argument(help: "URLs to fetch (instead of, or before, -i).")
    var urls: [String] = []

    @Option(name: .shortAndLong, help: "Read URLs from FILE, one per line ('-' = standard input).")
    var input: String?

    @OptionGroup var engine: EngineOptions

    @Option(name: .shortAndLong, help: "Write records to FILE instead of standard output.")
    var output: String?

    /// The request an input line asks for, or `nil` for a blank or comment line.
    static func request(fromLine line: String) -> Request? {
        let bytes = line.utf8
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), bytes[first] != UInt8(ascii: "#") else {
            return nil
        }
        if first == bytes.startIndex, let last = bytes.last, !isBlank(last) {
            return Request(line)
        }
        let last = bytes.lastIndex(where: { !isBlank($0) }) ?? first
        return Request(String(Substring(bytes[first...last])))
    }

    func run() async throws {
        let lines: AnySequence<String>
        if let path = self.input {
            let reader: LineReader
            do {
                reader = try LineReader(path: path)
            } catch {
                FileHandleOutput.standardError.write("batchfetch: \(error)\n")
                throw ExitCode(2)
            }
            lines = AnySequence(self.urls.lazy.map { $0 } + AnySequence(reader))
        } else if self.urls.isEmpty {
            if isatty(0) != 0 {
                throw ValidationError("no URLs: give them as arguments, with -i FILE, or on standard input")
            }
            lines = AnySequence(LineReader(fileDescriptor: 0))
        } else {
            lines = AnySequence(self.urls)
        }
        let requests = lines.lazy.compactMap(FetchCommand.request(fromLine:))

        let configuration = self.engine.configuration()

        let sink: FileHandleOutput
        if let path = self.output {
            guard let file = FileHandleOutput(path: path) else {
                FileHandleOutput.standardError.write("batchfetch: cannot write to \(path)\n")
                throw ExitCode(2)
            }
            sink = file
        } else {
            sink = FileHandleOutput.standardOutput
        }

        var failed = 0
        try await withEngine(configuration: configuration) { engine in
            var record = RecordWriter()
            for await result in engine.results(for: requests) {
                let ok = record.write(result)
                if !ok {
                    failed += 1
                }
                if record.buffer.count >= 1 << 16 {
                    sink.write(record.buffer)
                    record.buffer.removeAll(keepingCapacity: true)
                }
            }
            sink.write(record.buffer)
        }
        sink.flush()
        if failed > 0 {
            throw ExitCode(1)
        }
    }
}
