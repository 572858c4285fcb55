import BatchFetch
import Foundation
import Testing

/// The invariants `scripts/fuzz` checks (Fuzz/Sources/EnvelopeFuzz), pinned on the inputs that sit
/// on their edges. Inputs a fuzz run finds crashing go here too.
struct FuzzRegressionTests {
    /// Documents that are broken *after* the key path's value: a scanner that stopped at the
    /// value would accept them.
    static let brokenAfterTheValue: [String] = [
        #"{"drinks":[1],"#, #"{"drinks":[1]} x"#, #"{"drinks":[1],"a":}"#, #"{"drinks":[1],"a":"\x"}"#,
        #"{"drinks":[1],"a":[}"#, #"{"drinks":[1]}}"#, #"{"drinks":[1],"a":01}"#, #"{"drinks":[1],"a":tru}"#,
    ]

    @Test(arguments: brokenAfterTheValue)
    func aDocumentBrokenAfterTheKeyPathIsStillInvalid(document: String) {
        #expect(throws: FetchError.self) { try Envelope("drinks").content(of: Data(document.utf8)) }
        let kind: FetchError.Kind?
        do throws(FetchError) {
            _ = try Envelope("drinks").content(of: Data(document.utf8))
            kind = nil
        } catch {
            kind = error.kind
        }
        #expect(kind == .invalidJSON)
    }

    @Test func nestingIsAcceptedUpToTheLimitAndRejectedOneBeyond() throws {
        func nested(_ depth: Int) -> Data {
            Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        let envelope = Envelope("", maxDepth: 512)
        guard case .value(let slice) = try envelope.content(of: nested(512)) else {
            Issue.record("512 levels were not a value")
            return
        }
        #expect(slice.kind == .array && slice.range == 0..<1024)
        #expect(throws: FetchError.self) { try envelope.content(of: nested(513)) }
        #expect(throws: FetchError.self) { try envelope.content(of: nested(1_000_000)) }
    }

    /// Bytes that are not UTF-8 (overlong forms, surrogates, truncated sequences, stray
    /// continuation bytes) are invalid JSON wherever they are, on the key path or not.
    @Test(
        arguments: [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF]]
            as [[UInt8]])
    func invalidUTF8IsRejectedOnAndOffTheKeyPath(bytes: [UInt8]) {
        for (prefix, suffix) in [(#"{"drinks":""#, #""}"#), (#"{"other":""#, #"","drinks":[]}"#)] {
            let document = Data(Array(prefix.utf8) + bytes + Array(suffix.utf8))
            #expect(throws: FetchError.self) { try Envelope("drinks").content(of: document) }
            #expect(throws: FetchError.self) { try Envelope("").content(of: document) }
        }
    }

    /// The slice handed back is a valid document of its kind on its own (what the fuzz target
    /// checks for every accepted input).
    @Test func slicesAreValidDocumentsOnTheirOwn() throws {
        let document = Data(#" { "feed" : { "results" : [ {"a":"\u00e9\ud83c\udf78"} , 2.5e-3 ] , "x":null } } "#.utf8)
        guard case .value(let slice) = try Envelope("feed.results").content(of: document) else {
            Issue.record("no value at feed.results")
            return
        }
        let inner = Data(document[slice.range])
        #expect(String(decoding: inner, as: UTF8.self) == #"[ {"a":"\u00e9\ud83c\udf78"} , 2.5e-3 ]"#)
        guard case .value(let again) = try Envelope("").content(of: inner) else {
            Issue.record("the slice is not a value on its own")
            return
        }
        #expect(again.kind == .array && again.range == 0..<inner.count)
    }
}
