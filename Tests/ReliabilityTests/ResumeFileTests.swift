import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `crawl -o FILE --resume` into files that are not a crawl of ours: refused with exit status 2,
/// the file left byte for byte as it was, and nothing fetched beyond what the check needs.
@Suite(.serialized)
struct ResumeFileTests {
    @Test func filesThatAreNotOurCrawlAreRefusedAndLeftAlone() async throws {
        try await ReplicaServer.withServer { replica in
            let directory = try ScratchDirectory("bf-notours")
            let foreign: [(String, [UInt8])] = [
                ("prose", Array("line one\nline two\n".utf8)),
                ("one line without a newline", Array("my precious notes, no newline at the end".utf8)),
                (
                    "a good line then a foreign tail",
                    Array(#"{"category":"Cocktail","drinks":[]}"#.utf8) + [0x0A]
                        + Array("not ours".utf8)
                ),
                ("binary", [0x00, 0xFF, 0xFE, 0x0A, 0x00, 0x01, 0x0A, 0x7F]),
                (
                    "invalid UTF-8 in a record",
                    Array(#"{"category":""#.utf8) + [0xFF] + Array(#"","drinks":[]}"#.utf8) + [0x0A]
                ),
                ("another facet", Array(#"{"glass":"Highball glass","drinks":[]}"#.utf8) + [0x0A]),
                ("a fetch record", Array(#"{"index":0,"url":"http://x/","status":200,"ok":true}"#.utf8) + [0x0A]),
                ("a JSON array", Array("[\n  {\"category\":\"Cocktail\",\"drinks\":[]}\n]\n".utf8)),
                (
                    "10,000-deep nesting",
                    Array(#"{"category":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000) + [0x0A]
                ),
                ("a NUL-padded record", Array(#"{"category":"Cocktail","drinks":[]}"#.utf8) + [0, 0, 0x0A]),
            ]
            for (name, bytes) in foreign {
                let file = directory.path("foreign.txt")
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                let output = try Executable.batchfetch().run(
                    ["crawl", "--base-url", replica.baseURL, "-o", file, "--resume", "-q"], deadline: 30)
                #expect(!output.hung)
                #expect(output.status == 2, "\(name): \(output.stderr)")
                #expect(output.stderr.contains("refusing to resume"), "\(name): \(output.stderr)")
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: file)) == Data(bytes), "\(name): the file is untouched")
            }
            #expect(replica.stats().requests == 0, "nothing was fetched for a refused resume")
        }
    }

    /// The other side of the check: a torn last line of ours (any prefix of a record) is still
    /// dropped and the crawl completes to the uninterrupted bytes.
    @Test func aTornLineOfOursIsStillDroppedAndCompleted() async throws {
        try await ReplicaServer.withServer { replica in
            let directory = try ScratchDirectory("bf-torn")
            let reference = directory.path("reference.ndjson")
            let arguments = ["crawl", "--base-url", replica.baseURL, "-q"]
            #expect(try Executable.batchfetch().run(arguments + ["-o", reference]).status == 0)
            let expected = try Data(contentsOf: URL(fileURLWithPath: reference))
            let firstLine = try #require(expected.firstIndex(of: 0x0A)) + 1
            for cut in [1, 5, 13, firstLine + 1, firstLine + 7, firstLine + 40] {
                let file = directory.path("torn\(cut).ndjson")
                try expected.prefix(cut).write(to: URL(fileURLWithPath: file))
                let output = try Executable.batchfetch().run(arguments + ["-o", file, "--resume"], deadline: 30)
                #expect(output.status == 0, "cut at \(cut): \(output.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == expected, "cut at \(cut)")
            }
        }
    }
}
