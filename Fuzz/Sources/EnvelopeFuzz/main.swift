import Foundation
import FuzzDriver

@testable import BatchFetch

// libFuzzer entry: the envelope decoder (Envelope → JSONScanner) on arbitrary bytes.
//
// The first byte picks a key path and policy; the rest is the body. Beyond "no crash, no hang,
// no sanitizer report", it checks invariants that must hold for every input:
// - a found value's byte range lies inside the body and is itself a valid document of its kind;
// - `list(in:)` returns an array slice or nil, never anything else;
// - the whole document (key path "") is accepted exactly when some key path search does not
//   report invalid JSON (validation does not depend on the key path).
// - a value said to hold no line break (`mayHoldLineBreaks` false) holds no LF or CR.
private let paths = ["", "drinks", "feed.results", "a.b.c", "category", "error", "drinks.0", "."]

@_cdecl("LLVMFuzzerTestOneInput")
public func envelopeFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else {
        return 0
    }
    let selector = Int(start[0])
    let body = Data(bytes: start + 1, count: count - 1)
    let path = paths[selector % paths.count]
    let policy: NoResultsPolicy = selector & 0x08 == 0 ? .emptyList : .strict
    let envelope = Envelope(path, noResults: policy, maxDepth: selector & 0x10 == 0 ? 512 : 8)
    let whole = Envelope("", noResults: policy, maxDepth: envelope.maxDepth)

    var wholeValid = true
    do throws(FetchError) {
        _ = try whole.content(of: body)
    } catch {
        wholeValid = error.kind != .invalidJSON && error.kind != .emptyBody
    }
    do throws(FetchError) {
        let content = try envelope.content(of: body)
        if !wholeValid {
            fatalError("key path '\(path)' accepted a document that the whole-document scan rejects")
        }
        if case .value(let slice) = content {
            guard slice.range.lowerBound >= 0, slice.range.upperBound <= body.count, !slice.range.isEmpty else {
                fatalError("slice \(slice.range) outside a body of \(body.count) bytes")
            }
            if !slice.mayHoldLineBreaks && body[slice.range].contains(where: { $0 == 0x0A || $0 == 0x0D }) {
                fatalError("a value said to hold no line break holds one")
            }
            let inner = Data(body[slice.range])
            do throws(FetchError) {
                guard case .value(let again) = try whole.content(of: inner), again.kind == slice.kind else {
                    fatalError("the slice is not a \(slice.kind) on its own")
                }
            } catch {
                fatalError("the slice of a valid document is invalid: \(error)")
            }
        }
    } catch {
        if wholeValid && (error.kind == .invalidJSON || error.kind == .emptyBody) {
            fatalError("key path '\(path)' rejected a document the whole-document scan accepts: \(error)")
        }
        precondition(!error.message.isEmpty, "an error without a message")
    }
    do throws(FetchError) {
        if let slice = try envelope.list(in: body), slice.kind != .array {
            fatalError("list(in:) returned a \(slice.kind)")
        }
    } catch {
        precondition(!error.message.isEmpty, "an error without a message")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in data.map { envelopeFuzz($0, count) } ?? 0 })
