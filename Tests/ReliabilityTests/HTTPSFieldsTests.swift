import Foundation
import TestSupport
import Testing

/// `fetch --fields tls,remote` over HTTPS against nginx (see ``TLSServer``): the session's
/// protocol, cipher and certificate expiry, on new connections, reused ones and HTTP/2 streams.
@Suite(.serialized)
struct HTTPSFieldsTests {
    /// The good certificate's notAfter as `openssl` prints it, in the form records use.
    private static func notAfter(_ certificate: String, openssl: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["x509", "-noout", "-enddate", "-dateopt", "iso_8601", "-in", certificate]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // `notAfter=2026-03-01 12:00:00Z`
        let value = try #require(text.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        return value.replacing(" ", with: "T")
    }

    @Test func tlsNamesTheProtocolCipherAndCertificateExpiryOnNewReusedAndMultiplexedConnections() throws {
        guard let tools = TLSServer.tools() else {
            Issue.record("nginx or openssl is not installed: scripts/setup --build-tests installs them")
            return
        }
        let directory = try ScratchDirectory("bf-https-fields")
        let root = directory.path("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(#"{"ok":true}"#.utf8).write(to: URL(fileURLWithPath: "\(root)/doc.json"))
        let server = try TLSServer(
            nginx: tools.nginx, openssl: tools.openssl, directory: directory.url.path, root: root)
        defer { server.stop() }
        let expiry = try Self.notAfter(server.certificates.good.cert, openssl: tools.openssl)
        let urls = (0..<3).map { "https://127.0.0.1:\(server.good)/doc.json?i=\($0)" }
        for http2 in [false, true] {
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "-c", "1", "--ca-cert", server.certificates.caFile, "--fields", "tls,remote"]
                    + (http2 ? ["--http2"] : []) + urls, deadline: 30)
            #expect(output.status == 0, "\(output.stderr)")
            let records = try output.records()
            #expect(records.count == 3)
            for record in records {
                let tls = try #require(record["tls"] as? [String: Any], "\(record)")
                #expect(["TLSv1.2", "TLSv1.3"].contains(tls["version"] as? String ?? ""), "\(tls)")
                #expect((tls["cipher"] as? String)?.isEmpty == false, "\(tls)")
                #expect(tls["certificate_expires"] as? String == expiry, "\(tls)")
                let remote = try #require(record["remote"] as? [String: Any])
                #expect(remote["port"] as? Int == server.good)
                #expect(remote["http_version"] as? String == (http2 ? "HTTP/2" : "HTTP/1.1"))
            }
            // Read from the connection while each transfer held it: reused ones have it too.
            #expect(records.compactMap { ($0["remote"] as? [String: Any])?["reused"] as? Bool } == [false, true, true])
        }
        let plain = try Executable.batchfetch().run(
            [
                "fetch", "-q", "--http2-prior-knowledge", "--fields", "tls",
                "http://127.0.0.1:\(server.cleartextH2)/doc.json",
            ],
            deadline: 30)
        #expect(try plain.records().first?["tls"] is NSNull, "\(plain.stdout)")
    }
}
