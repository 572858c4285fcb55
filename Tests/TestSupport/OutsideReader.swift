import Foundation

/// scripts/warc-check, the outside readers (warcio, cdxj-indexer, surt, fastwarc) in a venv, run
/// from the tests: what they saw in a WARC file, decoded from the script's JSON.
package enum OutsideReader {
    /// One file as warcio, Python's zlib, cdxj-indexer and fastwarc saw it (scripts/warc.d/check.py).
    package struct Report: Decodable {
        package struct Member: Decodable {
            package let offset: Int64
            package let length: Int64
            package let data: String
        }

        package struct Record: Decodable {
            package let offset: Int64
            package let length: Int64
            package let type: String
            package let id: String
            package let headers: [[String]]
            package let http_status: String?
            package let http_headers: [[String]]?
            package let raw_payload: String
            package let payload: String?
        }

        package struct Check: Decodable {
            package let status: Int32
            package let output: String
        }

        /// `fastwarc check --verify-payloads` on the file (scripts/warc.d/check.py).
        package struct FastWARC: Decodable {
            /// One record's verdicts from fastwarc's details: `OK` or `FAIL`.
            package struct Record: Decodable, CustomStringConvertible {
                package let id: String
                /// The record's `WARC-Type`, as warcio read it.
                package let type: String?
                package let block: String?
                /// `nil` when fastwarc said nothing of the payload (no payload digest to check).
                package let payload: String?

                package var description: String {
                    "\(self.id) \(self.type ?? "?"): \(self.block ?? "-"), payload \(self.payload ?? "-")"
                }
            }

            /// Its exit status (0: every digest verified); `nil` when skipped. fastwarc fails every
            /// identical-payload-digest revisit (it digests the revisit's empty payload), so a file
            /// with one exits 1.
            package let status: Int32?
            package let output: String
            package let records: [Record]
            /// Every block and response payload verified, and no other payload failed but a
            /// revisit's (see ``status``); `nil` when skipped.
            package let passed: Bool?
            /// Why fastwarc did not run (pip could not install it), or `nil`.
            package let skipped: String?
        }

        package let members: [Member]
        package let partial_tail: Int
        package let records: [Record]
        package let iterator_error: String?
        package let check: Check
        package let cdxj: [String]
        package let fastwarc: FastWARC
    }

    package typealias Unavailable = WARCCheckScript.Unavailable
    package typealias Failure = WARCCheckScript.Failure

    /// The readers' report on `path`, or `nil` (said on standard output) when pip could not install
    /// them (unless `BATCHFETCH_WARC_READERS_REQUIRED=1`: see ``WARCCheckScript/required``); any other
    /// failure throws.
    package static func report(_ path: String) throws -> Report? {
        do {
            return try self.check(path)
        } catch let skipped as Unavailable where !WARCCheckScript.required {
            print("BatchFetchWARCTests: outside readers skipped: \(skipped)")
            return nil
        }
    }

    /// The readers' report on `path`.
    package static func check(_ path: String) throws -> Report {
        let output = try WARCCheckScript.run(["check", path])
        return try JSONDecoder().decode(Report.self, from: Data(output.utf8))
    }

    /// The `surt` package's keys for `urls`.
    package static func surt(_ urls: [String]) throws -> [String] {
        let output = try WARCCheckScript.run(["surt"], input: urls.joined(separator: "\n") + "\n")
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}

extension Array where Element == UInt8 {
    package init(base64: String) {
        self = Data(base64Encoded: base64).map { Array($0) } ?? []
    }
}
