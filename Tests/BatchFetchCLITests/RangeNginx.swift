import Foundation
import TestSupport

/// nginx run by a split-download test as its own child process, serving a folder of files at a
/// limited rate per connection (`limit_rate`), with one port per behaviour towards `Range`:
/// ``honours`` (as nginx does), ``ignores`` (`200` for every range, though it says
/// `Accept-Ranges: bytes`), ``changes`` (a new strong ETag per response, so `If-Range` never
/// matches), ``cuts`` (a range request's connection is closed unanswered) and ``stalls`` (a
/// range with an end sends 64 KiB, then a byte a second).
final class RangeNginx {
    let root: String
    private let directory: String
    private let process: Process
    let honours: Int
    let ignores: Int
    let changes: Int
    let cuts: Int
    let stalls: Int

    /// One request as the access log has it.
    struct LogLine {
        let port: Int
        let status: Int
        let range: String
        let ifRange: String
    }

    /// The installed nginx, or `nil`.
    static var executable: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    init(nginx: String, directory: String, root: String, rate: String) throws {
        self.directory = directory
        self.root = root
        let ports = try LoopbackPorts.free(5)
        (self.honours, self.ignores, self.changes, self.cuts, self.stalls) = (
            ports[0], ports[1], ports[2], ports[3], ports[4]
        )
        let server = { (port: Int, location: String) in
            "server { listen 127.0.0.1:\(port); root \(root); limit_rate \(rate); location / { \(location) } }"
        }
        let servers = [
            server(self.honours, ""),
            server(self.ignores, "max_ranges 0; add_header Accept-Ranges bytes;"),
            server(self.changes, #"etag off; add_header ETag "\"$msec\"";"#),
            server(self.cuts, "if ($http_range) { return 444; }"),
            server(self.stalls, #"if ($http_range ~ "-[0-9]+$") { limit_rate_after 64k; limit_rate 1; }"#),
        ]
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 512; }
            http {
                log_format ranges '$server_port $status "$http_range" "$http_if_range"';
                access_log \(directory)/access.log ranges;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                \(servers.joined(separator: "\n    "))
            }
            """
        let file = "\(directory)/nginx.conf"
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", directory, "-e", "\(directory)/error.log", "-c", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, !ports.allSatisfy(LoopbackPorts.accepts), Date() < deadline {
            usleep(10_000)
        }
        guard process.isRunning, ports.allSatisfy(LoopbackPorts.accepts) else {
            self.stop()
            let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            throw RangeNginxError(description: "nginx did not start on \(ports): \(log)")
        }
    }

    deinit {
        self.stop()
    }

    /// SIGKILL: the child inherits the test runner's signal mask, which blocks SIGTERM.
    func stop() {
        if self.process.isRunning {
            kill(self.process.processIdentifier, SIGKILL)
        }
        self.process.waitUntilExit()
    }

    /// The access log so far, one line per request served.
    func accessLog() -> [LogLine] {
        let text = (try? String(contentsOfFile: "\(self.directory)/access.log", encoding: .utf8)) ?? ""
        // nginx writes a quote inside a logged value as \x22.
        return text.replacingOccurrences(of: "\\x22", with: "'").split(separator: "\n").compactMap { line in
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false).map(String.init)
            let fields = quoted.first?.split(separator: " ").compactMap { Int($0) } ?? []
            guard fields.count == 2, quoted.count >= 4 else {
                return nil
            }
            return LogLine(
                port: fields[0], status: fields[1], range: quoted[1] == "-" ? "" : quoted[1],
                ifRange: quoted[3] == "-" ? "" : quoted[3])
        }
    }
}

struct RangeNginxError: Error, CustomStringConvertible {
    let description: String
}
