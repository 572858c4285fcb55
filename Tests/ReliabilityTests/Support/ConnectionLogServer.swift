import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nginx as ``TLSServer`` runs it (a child process of the test, files in a scratch directory, free
/// loopback ports), reduced to the two ports W4 of `scripts/bench` measures, each serving `root`
/// as static files and passing `/api/` to the replica at `upstreamPort`:
///
/// - ``tls``: TLS with the CA's good certificate, ALPN offering h2 and http/1.1
/// - ``cleartextH2``: h2c with prior knowledge only
///
/// Unlike ``TLSServer``, the crawl can run over h2c too, and connections live as long as W4's do
/// (no request limit, a long keep-alive), so every connection the log shows is one the client
/// chose to open. The access log has W4's fields: `PORT CONNECTION SESSION_REUSED PROTOCOL STATUS`.
final class ConnectionLogServer {
    let tls: Int
    let cleartextH2: Int
    let certificates: TestCertificates
    private let process: Process
    private let directory: String

    init(nginx: String, openssl: String, directory: String, root: String, upstreamPort: Int) throws {
        self.directory = directory
        self.certificates = try TestCertificates(in: directory, openssl: openssl)
        let ports = try LoopbackPorts.free(2)
        (self.tls, self.cleartextH2) = (ports[0], ports[1])
        let locations = "root \(root); location /api/ { \(TLSServer.proxyPass(to: upstreamPort)) }"
        let configuration = TLSServer.configuration(
            in: directory, workerConnections: 4096,
            settings: [
                "ssl_session_cache shared:W4:1m;", "keepalive_timeout 300s;", "keepalive_requests 100000000;",
            ],
            servers: [
                TLSServer.server(self.tls, self.certificates.good, locations),
                TLSServer.server(self.cleartextH2, nil, locations),
            ])
        self.process = try TLSServer.launch(nginx: nginx, configuration: configuration, in: directory, ports: ports)
        // The probes above connected without a request: nothing in the log, but connection
        // numbers are used up, which is why the log is read by connection number, not counted.
    }

    deinit {
        self.stop()
    }

    /// Stops nginx and waits for it; idempotent (SIGKILL: see ``TLSServer/stop()``).
    func stop() {
        TLSServer.stop(self.process)
    }

    /// What one run cost the server, read from the access log lines after `skipping` earlier ones.
    struct Tally: Equatable, CustomStringConvertible {
        var requests = 0
        var connections = 0
        /// Connections whose TLS handshake was a full one (their first request's session was not
        /// resumed); 0 on cleartext.
        var fullHandshakes = 0
        var protocols: Set<String> = []
        var statuses: Set<Int> = []

        var description: String {
            "\(self.requests) requests over \(self.connections) connections, \(self.fullHandshakes) full TLS handshakes"
        }
    }

    /// The access log so far, one entry per request served, in the order nginx wrote them.
    func accessLog() -> [TLSServer.LogLine] {
        TLSServer.accessLog(in: self.directory)
    }

    /// Counts as W4 does (`scripts/bench.d/benchlib/w4.py`): a connection per distinct connection number, a
    /// full handshake per TLS connection whose first request did not resume a session.
    static func tally(_ lines: some Sequence<TLSServer.LogLine>) -> Tally {
        var tally = Tally()
        var seen: Set<Int> = []
        for line in lines {
            tally.requests += 1
            tally.protocols.insert(line.protocolName)
            tally.statuses.insert(line.status)
            if seen.insert(line.connection).inserted {
                tally.connections += 1
                if line.sessionReused == "." {
                    tally.fullHandshakes += 1
                }
            }
        }
        return tally
    }
}
