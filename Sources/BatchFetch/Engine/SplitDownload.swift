import Foundation

/// A download whose body comes in byte ranges over several connections (`--split-min`): the
/// transfer that asked for it (the parent, which keeps its waiters) receives the first part, and
/// helper transfers, which have no waiters, each receive one later range.
///
/// The parts tile `[0, length)` in order. When every part has ended well, the parent's response
/// gets the bodies joined and is finished once; when a helper fails, its download falls back to
/// the parent alone (see ``EngineLoop``'s `settle`), so that no byte is lost or doubled.
///
/// Threading: engine thread only.
final class SplitDownload {
    /// The transfer whose result this download is.
    let parent: Transfer
    /// The entity's length (the parent's `Content-Length`).
    let length: Int
    /// `If-Range`'s value for the helpers: the parent's strong `ETag`, else its `Last-Modified`.
    let validator: String
    /// The parts, in order of their ranges; the first is the parent's.
    private(set) var parts: [SplitPart] = []
    /// A helper failed: the download ends as the parent's alone.
    var failed = false
    /// The parent's response, kept while helpers still run.
    var parentResponse: Response?

    init(parent: Transfer, length: Int, validator: String) {
        self.parent = parent
        self.length = length
        self.validator = validator
        let first = SplitPart(start: 0, end: length, transfer: parent, download: self)
        self.parts = [first]
        parent.part = first
    }

    /// Puts `part` after `before`, whose range it takes the end of.
    func insert(_ part: SplitPart, after before: SplitPart) {
        guard let index = self.parts.firstIndex(where: { $0 === before }) else {
            preconditionFailure("split part not in its download")
        }
        before.end = part.start
        self.parts.insert(part, at: index + 1)
    }

    /// Takes back a part that never started: its range goes back to the part before it.
    func remove(_ part: SplitPart) {
        guard let index = self.parts.firstIndex(where: { $0 === part }), index > 0 else {
            preconditionFailure("split part not in its download")
        }
        self.parts[index - 1].end = part.end
        self.parts.remove(at: index)
        part.transfer.part = nil
    }

    /// Whether every part ended with all its bytes.
    var isComplete: Bool { self.parts.allSatisfy { $0.state == .done } }

    /// The bodies of the parts that ended well, joined from the first byte up to the first part
    /// that did not.
    func contiguousBody() -> Data {
        var body = Data(capacity: self.length)
        for part in self.parts {
            guard part.state == .done, let bytes = part.body else {
                break
            }
            body.append(bytes)
        }
        return body
    }

    /// Unlinks the parts from their transfers (which then end as plain transfers would) and
    /// drops them; the download is over.
    func dissolve() {
        for part in self.parts {
            part.transfer.part = nil
            part.body = nil
        }
        self.parts = []
    }
}

/// One byte range of a ``SplitDownload`` and the transfer receiving it.
///
/// Threading: engine thread only.
final class SplitPart {
    /// Where a part stands.
    enum State {
        /// Its transfer is receiving, or (the parent) waiting for its response to be collected.
        case receiving
        /// All its bytes came: ``SplitPart/body``.
        case done
        /// Its transfer failed or was stopped.
        case failed
    }

    let start: Int
    /// Where its range ends (exclusive); moves down when the part is split again.
    var end: Int
    let transfer: Transfer
    /// Held strongly, as the download holds its parts: ``SplitDownload/dissolve()`` breaks the cycle.
    let download: SplitDownload
    var state = State.receiving
    var body: Data?

    init(start: Int, end: Int, transfer: Transfer, download: SplitDownload) {
        self.start = start
        self.end = end
        self.transfer = transfer
        self.download = download
    }

    var isParent: Bool { self.start == 0 }
}

@available(*, unavailable)
extension SplitDownload: Sendable {}

@available(*, unavailable)
extension SplitPart: Sendable {}
