import ArgumentParser
import BatchFetch
import Foundation

/// Flags every fetching command shares for how it talks to servers: the HTTP version and how TLS
/// certificates are trusted. Named as curl names them.
struct TransportOptions: ParsableArguments {
    @Flag(
        help: """
            Ask for HTTP/2 over TLS (ALPN; HTTP/1.1 when the server does not offer it). Requests to one host \
            then share as few connections as the server allows, -c counting streams in flight.
            """)
    var http2 = false

    @Flag(help: "Speak HTTP/2 at once, without negotiation: h2c on http:// URLs, for servers known to speak it.")
    var http2PriorKnowledge = false

    @Flag(name: [.customShort("k"), .long], help: "Do not verify TLS certificates (hosts you trust only).")
    var insecure = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Ask for compressed responses (Accept-Encoding: every coding this libcurl decodes) and decode \
            them. Default: on for fetch and crawl; off for bench, which like wrk and ab sends only what it \
            is asked to.
            """)
    var compressed: Bool? = nil

    @Option(
        name: .customLong("ca-cert"),
        help: "Trust the certificate authorities in this PEM FILE instead of the system's (a private CA).")
    var caCert: String?

    @Option(
        help: ArgumentHelp(
            """
            Send every request through this proxy (http://host:port, socks5h://host:port, …; '' for none). \
            Default: the environment's http_proxy, https_proxy, all_proxy and no_proxy, as curl reads them.
            """, valueName: "URL"))
    var proxy: String?

    @Option(
        help: ArgumentHelp(
            "Reach these hosts directly, not through a proxy: names, domains and addresses, comma-separated; * for all.",
            valueName: "LIST"))
    var noproxy: String?

    func validate() throws {
        for (flag, value) in [("--proxy", self.proxy), ("--noproxy", self.noproxy)]
        where value?.utf8.contains(where: { $0 <= 0x20 && $0 != 0x20 || $0 == 0x7F }) == true {
            throw ValidationError("\(flag) must not contain control characters")
        }
        if let proxy = self.proxy, let problem = Engine.Configuration.problem(withProxy: proxy) {
            throw ValidationError("--proxy: \(problem)")
        }
        if self.http2 && self.http2PriorKnowledge {
            throw ValidationError("give either --http2 or --http2-prior-knowledge, not both")
        }
        if let path = self.caCert {
            if self.insecure {
                throw ValidationError("--ca-cert has no effect with -k/--insecure, which verifies nothing")
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isReadableFile(atPath: path)
            else {
                throw ValidationError("--ca-cert: cannot read \(path) (a PEM file of CA certificates)")
            }
        }
    }

    /// Sets the HTTP version, compression and TLS trust these flags ask for; compression as
    /// `compressedByDefault` says unless `--compressed` or `--no-compressed` was given.
    func apply(to configuration: inout Engine.Configuration, compressedByDefault: Bool = true) {
        // "" lets libcurl list every coding it was built to decode.
        configuration.acceptEncoding = (self.compressed ?? compressedByDefault) ? "" : nil
        configuration.httpVersion =
            self.http2PriorKnowledge ? .http2PriorKnowledge : self.http2 ? .http2 : .http1_1
        configuration.verifyTLS = !self.insecure
        configuration.caCertificateFile = self.caCert
        configuration.proxy = self.proxy
        configuration.noProxy = self.noproxy
    }

    /// Says on standard error that certificates go unchecked, when `-k` was given, and that h2c
    /// will not multiplex, when libcurl is too old to.
    func warnAboutWeakenedTransport() {
        if self.insecure {
            FileHandleOutput.standardError.write(
                "batchfetch: warning: TLS certificates are not verified (--insecure)\n")
        }
        if self.http2PriorKnowledge && !BatchFetch.multiplexesCleartextHTTP2 {
            FileHandleOutput.standardError.write(
                "batchfetch: note: this libcurl (\(BatchFetch.libcurlVersion.prefix { $0 != " " })) breaks reused h2c "
                    + "connections (fixed in 8.0.0), so each http:// request gets a connection of its own\n")
        }
    }
}
