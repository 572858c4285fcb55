import Dispatch
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fetch` over many hosts as real networks have them (issue 54), on loopback: 127.0.0.2 to
/// 127.0.0.9 are hosts of their own, a listener whose accept queue is full drops SYNs as a dead
/// host does, and the test server answers slowly or trickles where asked.
@Suite(.serialized)
struct FetchNetworkTests {
    /// Connections are kept for every host in play, not closed whenever another host needs one.
    @Test func twoThousandRequestsOverEightHostsOpenAtMostAHundredConnections() async throws {
        var servers: [TestHTTPServer] = []
        defer {
            for server in servers {
                Task { try? await server.shutdown() }
            }
        }
        for host in 2...9 {
            servers.append(try await TestHTTPServer.start(host: "127.0.0.\(host)"))
        }
        let urls = (0..<2000).map { "\(servers[$0 % 8].baseURL)/ok?i=\($0)" }.joined(separator: "\n")
        // From a file: a pipe read a few lines at a time on a loaded machine shows the engine one
        // or two hosts at first, which then take every slot and open connections for them.
        let directory = try ScratchDirectory("fetch-eight-hosts")
        let list = directory.path("urls.txt")
        try (urls + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let output = try await Executable("batchfetch").runOffPool(
            ["fetch", "-q", "--body", "none", "-c", "64", "-i", list], deadline: 120)
        #expect(output.status == 0, "\(output.summary)")
        #expect(try output.records().count == 2000)
        let connections = servers.reduce(0) { $0 + $1.snapshot.connectionsAccepted }
        #expect(connections <= 100, "\(connections) connections for 2,000 requests over 8 hosts")
    }

    /// 100 URLs of a host that drops every SYN come first, then 30 of a host answering in 5 s,
    /// then 300 of a live one: the live host's URLs are all answered while the dead host's first
    /// connects still wait (it holds its share of the slots, not all of them), and the dead host's
    /// requests end, most of them unsent as hostUnreachable, after one probe instead of four
    /// connect timeouts each.
    @Test func aDeadHostCostsSecondsAndHoldsUpNoOtherHost() async throws {
        let dead = try SilentListener()
        defer { dead.close() }
        try await TestHTTPServer.with(host: "127.0.0.2") { slow in
            try await TestHTTPServer.with(host: "127.0.0.3") { live in
                let urls =
                    (0..<100).map { "http://127.0.0.1:\(dead.port)/ok?i=\($0)" }
                    + (0..<30).map { "\(slow.baseURL)/delay?ms=5000&i=\($0)" }
                    + (0..<300).map { "\(live.baseURL)/ok?i=\($0)" }
                // From a file, read before the first admission: a pipe that trickles in on a loaded
                // machine shows the engine the dead host alone at first, which then takes every slot
                // (a host alone gets them all; slots are not taken back).
                let directory = try ScratchDirectory("fetch-dead-host")
                let list = directory.path("urls.txt")
                try (urls.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
                let start = DispatchTime.now().uptimeNanoseconds
                let output = try await Executable("batchfetch").runOffPool(
                    ["fetch", "-q", "--body", "none", "--order", "completion", "-i", list], deadline: 120)
                #expect(output.status == 1, "\(output.summary)")
                #expect(output.seconds < 35, "the run took \(output.seconds) s")
                let records = try output.records().sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
                #expect(records.count == 430)
                // In completion order: in input order the live host's results wait behind the dead
                // host's first ones, and with them the reading of the rest of the list (the read-ahead).
                // Every live request arrived before the dead host's first connects could time out (10 s)
                // and free a slot: the live host did not wait for the dead one. (Within 5 s on a quiet
                // machine; the suite runs tests side by side on two cores, so the bound leaves room.)
                let lastLive = (live.snapshot.arrivals["/ok"] ?? []).max() ?? .max
                let liveSeconds = lastLive >= start ? Double(lastLive - start) / 1e9 : .infinity
                #expect(liveSeconds < 9, "the live host's last request came after \(liveSeconds) s")
                #expect(live.snapshot.arrivals["/ok"]?.count == 300)
                let kinds = records.prefix(100).map { ($0["error"] as? [String: Any])?["kind"] as? String ?? "none" }
                #expect(kinds.allSatisfy { $0 == "hostUnreachable" || $0 == "timeout" }, "\(kinds)")
                #expect(kinds.count { $0 == "hostUnreachable" } >= 50, "\(kinds)")
                #expect(records[100..<430].allSatisfy { $0["ok"] as? Bool == true })
                let message = records.lazy.compactMap { ($0["error"] as? [String: Any])?["message"] as? String }
                    .first { $0.contains("unreachable") }
                #expect(message?.contains("failed connects in a row over") == true, "\(message ?? "none")")
            }
        }
    }

    /// A dead host's URLs interleaved with a live one's, more of them than the read-ahead holds: the
    /// dead host's requests waiting at their share do not use up the read-ahead, so the list is
    /// read on and the live host's requests all go before the dead host's first connects time out.
    @Test(arguments: [false, true])
    func aDeadHostsWaitingRequestsDoNotStopTheListBeingRead(fromAPipe: Bool) async throws {
        let dead = try SilentListener()
        defer { dead.close() }
        try await TestHTTPServer.with(host: "127.0.0.3") { live in
            let urls = (0..<1200).flatMap {
                ["http://127.0.0.1:\(dead.port)/ok?i=\($0)", "\(live.baseURL)/ok?i=\($0)"]
            }
            let text = urls.joined(separator: "\n") + "\n"
            let directory = try ScratchDirectory("fetch-dead-read-ahead")
            let list = directory.path("urls.txt")
            try text.write(toFile: list, atomically: true, encoding: .utf8)
            let start = DispatchTime.now().uptimeNanoseconds
            let output = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--body", "none", "--order", "completion", "-i", fromAPipe ? "-" : list],
                stdin: fromAPipe ? text : nil, deadline: 120)
            #expect(output.status == 1, "\(output.summary)")
            #expect(try output.records().count == 2400)
            let arrivals = live.snapshot.arrivals["/ok"] ?? []
            #expect(arrivals.count == 1200)
            let lastLive = arrivals.max() ?? .max
            let liveSeconds = lastLive >= start ? Double(lastLive - start) / 1e9 : .infinity
            #expect(liveSeconds < 9, "the live host's last request came after \(liveSeconds) s")
        }
    }

    /// `--timeout` ends an attempt that receives nothing for that long; a slow body goes on.
    /// `--max-time` limits the whole attempt, as curl's does.
    @Test func aTrickledBodyPassesTheIdleTimeoutAndFailsTheMaxTime() async throws {
        try await TestHTTPServer.with { server in
            let trickle = "\(server.baseURL)/trickle?n=10&ms=500"
            let idle = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--retries", "0", "--timeout", "2", trickle], deadline: 60)
            #expect(idle.status == 0, "\(idle.summary)")
            #expect(try idle.records().first?["bytes"] as? Int == 10)
            let capped = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--retries", "0", "--timeout", "2", "--max-time", "2", trickle], deadline: 60)
            #expect(capped.status == 1)
            let error = try capped.records().first?["error"] as? [String: Any]
            #expect(error?["kind"] as? String == "timeout", "\(capped.summary)")
            // Nothing at all after the request: the idle timeout ends it.
            let hang = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--retries", "0", "--timeout", "1", "\(server.baseURL)/hang"], deadline: 60)
            #expect((try hang.records().first?["error"] as? [String: Any])?["kind"] as? String == "timeout")
            #expect(hang.seconds < 10, "\(hang.seconds) s")
            let bad = try Executable("batchfetch").run(["fetch", "-q", "--max-time", "0", "-i", "/dev/null"])
            #expect(bad.status == 2 && bad.stderr.contains("--max-time 0 is out of range"), "\(bad.stderr)")
        }
    }

    /// `--adaptive` without a rule against a host that answers in 5 s: the slots, not the rate,
    /// hold the work back, the rate stays bounded, and every record is written.
    @Test func adaptiveAgainstASlowHostEndsWithEveryRecordOk() async throws {
        try await TestHTTPServer.with { server in
            let urls = (0..<400).map { "\(server.baseURL)/delay?ms=5000&i=\($0)" }.joined(separator: "\n")
            let output = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--body", "none", "--order", "completion", "-c", "64", "--adaptive"],
                stdin: urls + "\n", deadline: 150)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.count == 400 && records.allSatisfy { $0["ok"] as? Bool == true })
        }
    }
}

/// A listening socket on 127.0.0.1 that never accepts, its accept queue filled at once, so that the
/// kernel drops every further SYN: to a client, a host that does not answer at all.
struct SilentListener {
    let port: Int
    private let listener: Int32
    private let fillers: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard listener >= 0, bound == 0, named == 0, listen(listener, 0) == 0 else {
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        // A backlog of 0 holds one connection; two fill it whatever the kernel rounds it to.
        var fillers: [Int32] = []
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(filler)
        }
        self.fillers = fillers
        usleep(200_000)
    }

    func close() {
        for filler in self.fillers {
            _ = Glibc.close(filler)
        }
        _ = Glibc.close(self.listener)
    }
}
