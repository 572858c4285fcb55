import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A private certificate authority and server certificates made with the `openssl` command for
/// one test: one the client should accept (127.0.0.1 and localhost), one for another host name,
/// one that has expired. EC keys, so making them takes milliseconds.
struct TestCertificates {
    /// The CA certificate to give to `--ca-cert`.
    let caFile: String
    /// Certificate and key for 127.0.0.1 and localhost, signed by the CA, valid today.
    let good: (cert: String, key: String)
    /// Signed by the CA, valid today, but for `wrong.example` only.
    let wrongHost: (cert: String, key: String)
    /// Signed by the CA for 127.0.0.1, but expired yesterday.
    let expired: (cert: String, key: String)

    /// Makes everything in `directory`; throws when openssl fails.
    init(in directory: String, openssl: String) throws {
        func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let message = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TLSServerError(
                    "openssl \(arguments.prefix(2).joined(separator: " ")) failed: "
                        + String(decoding: message, as: UTF8.self))
            }
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let ca = (cert: "\(directory)/ca.pem", key: "\(directory)/ca.key")
        try run(
            ["req", "-x509"] + key + [
                "-subj", "/CN=batchfetch test CA", "-days", "2", "-keyout", ca.key, "-out", ca.cert,
            ])
        // A server certificate signed by the CA; `-days -1` ends its validity yesterday.
        func issue(_ name: String, names: String, days: Int) throws -> (cert: String, key: String) {
            let files = (cert: "\(directory)/\(name).pem", key: "\(directory)/\(name).key")
            let request = "\(directory)/\(name).csr"
            let extensions = "\(directory)/\(name).ext"
            try Data("subjectAltName=\(names)\n".utf8).write(to: URL(fileURLWithPath: extensions))
            try run(["req"] + key + ["-subj", "/CN=\(name)", "-keyout", files.key, "-out", request])
            try run([
                "x509", "-req", "-in", request, "-CA", ca.cert, "-CAkey", ca.key, "-CAcreateserial", "-days",
                String(days), "-extfile", extensions, "-out", files.cert,
            ])
            return files
        }
        self.caFile = ca.cert
        self.good = try issue("good", names: "IP:127.0.0.1,DNS:localhost", days: 2)
        self.wrongHost = try issue("wrong-host", names: "DNS:wrong.example", days: 2)
        self.expired = try issue("expired", names: "IP:127.0.0.1,DNS:localhost", days: -1)
    }
}

/// nginx run by a test as its own child process (no daemon, no master process), with its
/// configuration, pid file, logs and temporary files in a scratch directory, on free ports of
/// 127.0.0.1; stopped by ``stop()``.
///
/// Ports:
/// - ``good``: TLS with the good certificate, ALPN offering h2 and http/1.1
/// - ``wrongHost``, ``expired``: TLS with those certificates
/// - ``cleartextH2``: h2c with prior knowledge only (nginx's `listen … http2` without `ssl`)
/// - ``shortLived``: as ``good``, but each connection closes after 10 requests
/// - ``proxy``: TLS + h2 with the good certificate, passing every request to `upstreamPort`
///   over HTTP/1.1 (only when an upstream is given)
///
/// `root` is served as static files. The access log has one line per request:
/// `PORT CONNECTION SESSION_REUSED PROTOCOL STATUS`, read back with ``accessLog()``.
final class TLSServer {
    let good: Int
    let wrongHost: Int
    let expired: Int
    let cleartextH2: Int
    let shortLived: Int
    let proxy: Int?
    let certificates: TestCertificates
    private let process: Process
    private let directory: String

    /// One access log line.
    struct LogLine: Equatable {
        let port: Int
        let connection: Int
        /// `r` when the TLS session was resumed, `.` when not, `-` on cleartext.
        let sessionReused: String
        let protocolName: String
        let status: Int
    }

    /// The installed nginx and openssl, or nil (with the reason recorded by the caller) when either
    /// is missing; `scripts/setup --build-tests` installs both.
    static func tools() -> (nginx: String, openssl: String)? {
        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let nginx, let openssl else {
            return nil
        }
        return (nginx, openssl)
    }

    /// Starts nginx serving `root`, and returns once every port accepts connections.
    init(nginx: String, openssl: String, directory: String, root: String, upstreamPort: Int? = nil) throws {
        self.directory = directory
        self.certificates = try TestCertificates(in: directory, openssl: openssl)
        let ports = try LoopbackPorts.free(upstreamPort == nil ? 5 : 6)
        (self.good, self.wrongHost, self.expired, self.cleartextH2) = (ports[0], ports[1], ports[2], ports[3])
        self.shortLived = ports[4]
        self.proxy = upstreamPort == nil ? nil : ports[5]
        let c = self.certificates
        let block = Self.server
        var servers = [
            block(self.good, c.good, "root \(root);"), block(self.wrongHost, c.wrongHost, "root \(root);"),
            block(self.expired, c.expired, "root \(root);"), block(self.cleartextH2, nil, "root \(root);"),
            block(self.shortLived, c.good, "root \(root); keepalive_requests 10;"),
        ]
        if let proxy = self.proxy, let upstreamPort {
            servers.append(block(proxy, c.good, "location / { \(Self.proxyPass(to: upstreamPort)) }"))
        }
        let configuration = Self.configuration(
            in: directory, workerConnections: 1024, settings: ["ssl_session_cache shared:TLS:1m;"], servers: servers)
        self.process = try Self.launch(nginx: nginx, configuration: configuration, in: directory, ports: ports)
    }

    /// Writes `configuration` into `directory`, starts nginx on it and waits until every port
    /// accepts connections (10 s at most). - Throws: ``TLSServerError`` with nginx's error log.
    static func launch(nginx: String, configuration: String, in directory: String, ports: [Int]) throws -> Process {
        let configurationFile = "\(directory)/nginx.conf"
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationFile))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        // -e: the error log before the configuration is read, else nginx opens /var/log/nginx/error.log.
        process.arguments = ["-p", directory, "-e", "\(directory)/error.log", "-c", configurationFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, !ports.allSatisfy(LoopbackPorts.accepts), Date() < deadline {
            usleep(10_000)
        }
        guard process.isRunning, ports.allSatisfy(LoopbackPorts.accepts) else {
            Self.stop(process)
            let log = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            throw TLSServerError("nginx did not start on \(ports): \(log)")
        }
        return process
    }

    deinit {
        self.stop()
    }

    /// Stops nginx and waits for it; idempotent. SIGKILL, because the child inherits the test
    /// runner's signal mask, which blocks SIGTERM; with no master process there is no worker to
    /// orphan.
    func stop() {
        Self.stop(self.process)
    }

    static func stop(_ process: Process) {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// The access log so far, one entry per request served.
    func accessLog() -> [LogLine] {
        Self.accessLog(in: self.directory)
    }

    /// An nginx configuration for ``launch(nginx:configuration:in:ports:)``: one process, its pid
    /// file, logs and temporary files in `directory`, an access log line per request (``LogLine``),
    /// and `settings` and `servers` in its `http` block.
    static func configuration(
        in directory: String, workerConnections: Int, settings: [String], servers: [String]
    ) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log warn;
        events { worker_connections \(workerConnections); }
        http {
            default_type application/json;
            \(settings.joined(separator: "\n    "))
            log_format conn '$server_port $connection $ssl_session_reused $server_protocol $status';
            access_log \(directory)/access.log conn;
            client_body_temp_path \(directory)/client_body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            \(servers.joined(separator: "\n"))
        }
        """
    }

    /// A `server` block on 127.0.0.1:`port` speaking HTTP/2: over TLS (ALPN offering h2 and
    /// http/1.1) with `certificate`, or h2c with prior knowledge only without one.
    static func server(_ port: Int, _ certificate: (cert: String, key: String)?, _ body: String) -> String {
        guard let certificate else {
            return "server { listen 127.0.0.1:\(port) http2; \(body) }"
        }
        return """
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certificate.cert);
                ssl_certificate_key \(certificate.key);
                \(body)
            }
            """
    }

    /// Directives passing requests to `upstreamPort` over HTTP/1.1 keep-alive connections.
    static func proxyPass(to upstreamPort: Int) -> String {
        #"proxy_pass http://127.0.0.1:\#(upstreamPort); proxy_http_version 1.1; proxy_set_header Connection "";"#
    }

    /// The access log of the nginx configured for `directory`, in the order nginx wrote it.
    static func accessLog(in directory: String) -> [LogLine] {
        let text = (try? String(contentsOfFile: "\(directory)/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 5, let port = Int(fields[0]), let connection = Int(fields[1]),
                let status = Int(fields[4])
            else {
                return nil
            }
            return LogLine(
                port: port, connection: connection, sessionReused: fields[2], protocolName: fields[3], status: status)
        }
    }
}

/// Why the test's TLS server could not be set up.
struct TLSServerError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
