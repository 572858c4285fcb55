import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchBench

/// ``BenchRecorder`` and the ``BenchReport`` it makes, from hand-made results.
struct BenchRecorderTests {
    private func response(
        status: Int, bytes: Int = 100, total: Duration = .milliseconds(20), newConnections: Int = 0,
        tls: Duration = .zero
    ) -> FetchResult {
        let timings = Timings(
            queued: .microseconds(5), nameLookup: .microseconds(30), connect: .microseconds(200), tlsHandshake: tls,
            preTransfer: .microseconds(250), firstByte: total - .microseconds(100), total: total)
        let response = Response(
            status: status, headers: HTTPHeaders([]), body: Data(count: bytes), effectiveURL: "http://h/",
            timings: timings, newConnections: newConnections)
        return FetchResult(index: 0, request: Request("http://h/"), outcome: .success(response), attempts: 1)
    }

    private func failure(_ kind: FetchError.Kind, attempts: Int = 1) -> FetchResult {
        FetchResult(
            index: 0, request: Request("http://h/"), outcome: .failure(FetchError(kind: kind, message: "x")),
            attempts: attempts)
    }

    private func sample() -> BenchRecorder {
        var recorder = BenchRecorder()
        for index in 0..<96 {
            recorder.record(
                self.response(status: 200, total: .milliseconds(20 + index % 3), newConnections: index < 4 ? 1 : 0))
        }
        recorder.record(self.response(status: 404, bytes: 10))
        recorder.record(self.response(status: 503, bytes: 10))
        recorder.record(self.failure(.connectFailed, attempts: 4))
        recorder.record(self.failure(.timeout))
        return recorder
    }

    @Test func countsAreSplitByStatusAndByErrorKind() {
        let recorder = self.sample()
        #expect(recorder.requests == 100)
        #expect(recorder.ok == 96 && recorder.failed == 4)
        #expect(recorder.statuses == [200: 96, 404: 1, 503: 1])
        #expect(recorder.errors == [.connectFailed: 1, .timeout: 1])
        #expect(recorder.bytes == 96 * 100 + 20)
        #expect(recorder.connections == 4)
        #expect(recorder.retries == 3)
        #expect(recorder.latency.count == 98, "every response has a latency, errors none")
        #expect(recorder.connect.count == 4, "connect phases only from responses that opened a connection")
        #expect(recorder.tlsHandshake.isEmpty, "no TLS over plain HTTP")
    }

    @Test func connectionsOpenedByFailedRequestsAreCounted() {
        var recorder = self.sample()
        let timedOut = FetchResult(
            index: 0, request: Request("http://h/"), outcome: .failure(FetchError(kind: .timeout, message: "x")),
            attempts: 2, newConnections: 2)
        recorder.record(timedOut)
        #expect(recorder.connections == 4 + 2)
        #expect(recorder.connect.count == 4, "a failure has no phases to record")
    }

    @Test func responsesAreCountedByTheHTTPVersionTheyCameOverInTheReportToo() throws {
        var recorder = BenchRecorder()
        for version in [HTTPVersion.http2, .http2, .http1_1] {
            let response = Response(
                status: 200, headers: HTTPHeaders([]), body: Data(), effectiveURL: "https://h/", httpVersion: version)
            recorder.record(
                FetchResult(index: 0, request: Request("https://h/"), outcome: .success(response), attempts: 1))
        }
        recorder.record(self.failure(.tlsFailure))
        #expect(recorder.protocols == [.http2: 2, .http1_1: 1], "errors came over no protocol")
        var other = BenchRecorder()
        other.add(recorder)
        let report = other.report(elapsed: .seconds(1), pacing: .closedLoop, concurrency: 4)
        #expect(report.protocols == ["HTTP/2": 2, "HTTP/1.1": 1])
        #expect(report.text.contains("; over HTTP/1.1 x1, HTTP/2 x2\n"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: try JSONEncoder().encode(report)) as? [String: Any])
        #expect(json["protocols"] as? [String: Int] == ["HTTP/2": 2, "HTTP/1.1": 1])
    }

    @Test func anExplicitLatencyReplacesTheTransferTime() {
        var recorder = BenchRecorder()
        recorder.record(self.response(status: 200, total: .milliseconds(20)), latency: .milliseconds(900))
        // Within the histogram's three significant digits.
        #expect(abs(BenchRecorder.milliseconds(recorder.latency.max) - 900) < 0.9)
        #expect(abs(BenchRecorder.milliseconds(recorder.total.max) - 20) < 0.02)
    }

    @Test func theReportCarriesRatesPercentilesAndPhaseMedians() throws {
        let report = self.sample().report(elapsed: .seconds(2), pacing: .closedLoop, concurrency: 8)
        #expect(report.mode == "closed-loop" && report.rate == nil && report.concurrency == 8)
        #expect(report.requests == 100 && report.ok == 96 && report.failed == 4)
        #expect(report.requestsPerSecond == 50)
        #expect(report.bytes == 9620 && report.megabytesPerSecond == 0.005)
        #expect(report.statuses == ["200": 96, "404": 1, "503": 1])
        #expect(report.errors == ["connectFailed": 1, "timeout": 1])
        let latency = try #require(report.latency)
        #expect(abs(latency.min - 20) < 0.02 && abs(latency.p50 - 21) < 0.02 && abs(latency.max - 22) < 0.03)
        #expect(latency.p90 <= latency.p99 && latency.p99 <= latency.p99_9 && latency.p99_9 <= latency.max)
        #expect(report.phases.dns == 0.03 && report.phases.connect == 0.2 && report.phases.tls == nil)
        #expect(report.phases.newConnectionSamples == 4)
        #expect(report.histogram.reduce(0) { $0 + $1.count } == 98)
    }

    @Test func jsonHasAStableSetOfSnakeCaseKeysWithAnOkCount() throws {
        let empty = BenchRecorder().report(elapsed: .zero, pacing: .openLoop(requestsPerSecond: 50), concurrency: 2)
        let full = self.sample().report(elapsed: .seconds(1), pacing: .closedLoop, concurrency: 2)
        var keySets: [Set<String>] = []
        for report in [empty, full] {
            let data = try JSONEncoder().encode(report)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            keySets.append(Set(object.keys))
            #expect(object["ok"] is Int)
            #expect(object["requests_per_second"] != nil && object["latency_ms"] != nil)
            #expect(try JSONDecoder().decode(BenchReport.self, from: data) == report)
        }
        #expect(keySets[0] == keySets[1])
        let text = String(decoding: try JSONEncoder().encode(empty), as: UTF8.self)
        #expect(text.contains("\"latency_ms\":null") && text.contains("\"rate\":50"))
        #expect(text.contains("\"mode\":\"open-loop\""))
    }

    @Test func theTextReportShowsEveryFigureAndABarPerBucket() {
        let report = self.sample().report(elapsed: .seconds(2), pacing: .closedLoop, concurrency: 8)
        let text = report.text
        #expect(text.hasPrefix("closed-loop, 8 in flight: 100 requests in 2.00 s\n"))
        #expect(text.contains("ok 96, failed 4; statuses 200 x96, 404 x1, 503 x1"))
        #expect(text.contains("errors connectFailed x1, timeout x1"))
        #expect(text.contains("50.0 req/s"))
        #expect(text.contains("p50 21.0") && text.contains("p99.9 22.0"), "\(text)")
        #expect(text.contains("dns 30us") && text.contains("tls -"))
        let bars = text.split(separator: "\n").filter { $0.contains("|") }
        #expect(bars.count == report.histogram.count)
        #expect(bars.allSatisfy { $0.allSatisfy(\.isASCII) })
        #expect(bars.contains { $0.contains("|" + String(repeating: "#", count: 40) + "|") })
    }

    @Test func mergingRecordersAddsEverything() {
        var merged = self.sample()
        merged.add(self.sample())
        #expect(merged.requests == 200 && merged.ok == 192 && merged.retries == 6)
        #expect(merged.statuses[200] == 192 && merged.errors[.timeout] == 2)
        #expect(merged.latency.count == 196 && merged.connect.count == 8)
    }
}
