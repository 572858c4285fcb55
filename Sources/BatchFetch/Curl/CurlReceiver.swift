internal import CCurl
import Foundation

/// What libcurl's header and body callbacks hand over during one transfer.
///
/// It lives at a fixed address owned by its ``CurlEasy`` and reaches the C callbacks as their
/// `userdata` pointer, so that each call (one per header line, one or more per body) is a plain
/// write to memory: through a class instance, each cost a retain and release and two exclusivity
/// checks around a generic `Array` or `Data` append.
///
/// Threading: engine thread only, like its handle.
struct CurlReceiver {
    /// The current response's header lines (the status line not included).
    private(set) var headers = RawBytes()
    /// The body so far, decoded; handed over whole by ``takeBody()``.
    private(set) var body = RawBytes()
    /// Set when the body outgrew ``maxBodyBytes`` and the transfer was stopped there.
    private(set) var bodyExceededLimit = false
    /// Set when memory for the body or headers ran out and the transfer was stopped there.
    private(set) var outOfMemory = false
    private var bodySized = false
    private let maxBodyBytes: Int
    /// Whether body bytes are kept; when not, only counted in ``discardedBytes``.
    private let keepsBody: Bool
    /// This transfer's body stays in memory whatever the engine does with bodies: an origin's
    /// preflight (robots.txt), which the engine reads itself.
    var keepsThisBody = false
    /// Body bytes counted and dropped (see ``Engine/Configuration/keepsBodies``).
    private(set) var discardedBytes = 0
    /// Where bodies go instead of ``body`` when they are saved to files
    /// (``Engine/Configuration/bodyFolder``).
    private(set) var spool: BodySpool?
    /// What each response's status line says, when the engine gathers ``TransferDetails``.
    var trail: ResponseTrail?
    /// The request and response heads as they went over the wire, when the engine gathers
    /// ``Exchange``s.
    var wire: WireCapture?
    private let handle: UnsafeMutableRawPointer
    /// Bytes a retry continues from (``ResumePoint``), already in ``body``; 0 = none.
    private(set) var resumedFrom = 0
    /// Whether the server sent the rest (`206` from ``resumedFrom``), once the first body bytes came.
    private(set) var resumeAccepted = false
    /// The answer to a resumed request was a range other than the one asked for.
    private(set) var resumeRefused = false
    /// Set while the transfer receives one part of a split download (``SplitDownload``).
    var part: PartWatch?
    /// What ``CurlEasy/splitFacts()`` found in this response's head, once asked.
    var splitFacts: SplitFacts?? = nil

    init(
        handle: UnsafeMutableRawPointer, maxBodyBytes: Int, keepsBody: Bool = true, spool: BodySpool? = nil,
        trail: ResponseTrail? = nil, wire: WireCapture? = nil
    ) {
        self.handle = handle
        self.wire = wire
        self.maxBodyBytes = maxBodyBytes
        self.keepsBody = keepsBody
        self.spool = spool
        self.trail = trail
    }

    /// One header line as libcurl delivers it, CRLF included. - Returns: `count`, or 0 to stop.
    mutating func receiveHeader(_ line: UnsafeRawPointer, count: Int) -> Int {
        let bytes = line.assumingMemoryBound(to: UInt8.self)
        // Each response (a redirect's, an interim 100's, the final one) starts with a status
        // line; keep only the last response's fields.
        if count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T")
            && bytes[2] == UInt8(ascii: "T") && bytes[3] == UInt8(ascii: "P") && bytes[4] == UInt8(ascii: "/")
        {
            self.headers.removeAll()
            self.trail?.statusLine(bytes, count: count, handle: self.handle)
            if self.wire?.received(line, count: count, isStatusLine: true) == false {
                self.outOfMemory = true
                return 0
            }
            return count
        }
        guard self.headers.append(line, count: count),
            self.wire?.received(line, count: count, isStatusLine: false) != false
        else {
            self.outOfMemory = true
            return 0
        }
        return count
    }

    /// Body bytes. - Returns: `count`, or 0 to stop the transfer (too large, out of memory).
    mutating func receiveBody(_ data: UnsafeRawPointer, count: Int) -> Int {
        if self.resumedFrom > 0 && !self.resumeAccepted && !self.checkResumed() {
            return 0
        }
        if self.part != nil {
            return self.receivePart(data, count: count)
        }
        return self.keep(data, count: count)
    }

    /// Body bytes past the checks of a resumed or split download.
    private mutating func keep(_ data: UnsafeRawPointer, count: Int) -> Int {
        if self.spool != nil && !self.keepsThisBody {
            return self.spoolBody(data, count: count)
        }
        guard self.keepsBody || self.keepsThisBody else {
            // Counted against the same limit, so a record says the same with or without its body.
            self.discardedBytes += count
            self.bodyExceededLimit = self.discardedBytes > self.maxBodyBytes
            return self.bodyExceededLimit ? 0 : count
        }
        if self.body.count + count > self.maxBodyBytes {
            // Returning less than `count` makes libcurl abort the transfer with CURLE_WRITE_ERROR.
            self.bodyExceededLimit = true
            return 0
        }
        if !self.bodySized {
            // One allocation of the announced size when the first bytes come.
            self.bodySized = true
            var length: curl_off_t = -1
            if ccurl_easy_getinfo_off_t(self.handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK,
                length > count, length <= self.maxBodyBytes
            {
                _ = self.body.reserve(Int(length))
            }
        }
        guard self.body.append(data, count: count) else {
            self.outOfMemory = true
            return 0
        }
        return count
    }

    private mutating func spoolBody(_ data: UnsafeRawPointer, count: Int) -> Int {
        guard let received = self.spool?.count, received + count <= self.maxBodyBytes else {
            self.bodyExceededLimit = true
            return 0
        }
        return self.spool?.append(data, count: count) == true ? count : 0
    }

    /// Body bytes of a split download's part: a helper's answer is checked at its first bytes;
    /// bytes up to the part's end are kept, and the transfer stops there (``PartWatch/cut``).
    private mutating func receivePart(_ data: UnsafeRawPointer, count: Int) -> Int {
        guard var watch = self.part else {
            return 0
        }
        defer { self.part = watch }
        if !watch.checked {
            var status = 0
            _ = ccurl_easy_getinfo_long(self.handle, CURLINFO_RESPONSE_CODE, &status)
            let range = HTTPHeaders(raw: Array(self.headers.buffer))["content-range"] ?? ""
            guard status == 206, range.lowercased() == watch.expectedRange else {
                watch.refused = true
                return 0
            }
            watch.checked = true
        }
        let room = watch.stopAt - self.body.count
        if count <= room {
            return self.keep(data, count: count)
        }
        if room > 0, self.keep(data, count: room) != room {
            return 0
        }
        // Returning less than `count` ends the transfer (CURLE_WRITE_ERROR), as planned.
        watch.cut = true
        return 0
    }

    /// Starts the body with the bytes an earlier attempt received, for a retry that asks for the rest.
    mutating func seed(_ bytes: Data) -> Bool {
        guard !bytes.isEmpty, self.keepsBody, self.spool == nil else {
            return false
        }
        let copied = bytes.withUnsafeBytes { raw in
            raw.baseAddress.map { self.body.append($0, count: raw.count) } ?? false
        }
        guard copied else {
            return false
        }
        self.resumedFrom = bytes.count
        self.bodySized = true
        return true
    }

    /// At a resumed response's first body bytes: a `206` from where the body stops goes on after
    /// it; any other status starts the body anew (the entity changed, or the server ignores
    /// ranges); a `206` of another range stops the transfer. - Returns: whether to go on.
    private mutating func checkResumed() -> Bool {
        var status = 0
        _ = ccurl_easy_getinfo_long(self.handle, CURLINFO_RESPONSE_CODE, &status)
        guard status == 206 else {
            self.body.removeAll()
            self.resumedFrom = 0
            return true
        }
        let range = HTTPHeaders(raw: Array(self.headers.buffer))["content-range"] ?? ""
        guard ResumePoint.contentRange(range, startsAt: self.resumedFrom) else {
            self.resumeRefused = true
            return false
        }
        self.resumeAccepted = true
        return true
    }

    /// The spooled body, its file closed and waiting for a name; `nil` when no byte came or bodies
    /// are not spooled. - Throws: ``FetchError/Kind/fileWrite`` when its last bytes could not be written.
    mutating func finishSpool() throws(FetchError) -> SpooledBody? {
        try self.spool?.finish()
    }

    /// The body as `Data`, which takes over its memory; the receiver starts an empty one.
    mutating func takeBody() -> Data {
        self.body.takeData()
    }

    /// Ready for the next transfer: header memory is kept for it, body memory not yet handed
    /// over is freed.
    mutating func reset() {
        self.resetForHop()
        self.part = nil
        self.splitFacts = nil
        self.trail?.reset()
        self.wire?.reset()
    }

    /// Ready for a redirect's next hop (``RedirectFollower``): what the redirect's response sent is
    /// dropped, what the trail learnt of it kept.
    mutating func resetForHop() {
        self.headers.removeAll()
        self.body.deallocate()
        self.spool?.discard()
        self.bodySized = false
        self.bodyExceededLimit = false
        self.outOfMemory = false
        self.discardedBytes = 0
        self.resumedFrom = 0
        self.resumeAccepted = false
        self.resumeRefused = false
        self.wire?.resetForHop()
    }

    /// Frees all memory; the receiver is empty afterwards.
    mutating func deallocate() {
        self.wire?.deallocate()
        self.headers.deallocate()
        self.body.deallocate()
        self.spool?.deallocate()
    }
}

/// What a receiver checks and where it stops while its transfer receives one part of a split
/// download (``SplitDownload``).
struct PartWatch {
    /// Body bytes after which the part ends: the transfer stops there.
    var stopAt: Int
    /// The `Content-Range` (lower case) a helper's `206` must carry; `nil` for the parent's part.
    let expectedRange: String?
    /// Whether the answer was checked (the parent's always is).
    var checked: Bool
    /// The transfer stopped at ``stopAt``, as planned: its part ended well.
    var cut = false
    /// A helper's answer was not the range asked for.
    var refused = false
}

/// What a response's head says of splitting its body (``CurlEasy/splitFacts()``).
struct SplitFacts {
    let length: Int
    let validator: String
}

/// A growable run of bytes in `malloc`ed memory, which `Data` can take over without a copy.
struct RawBytes {
    private(set) var start: UnsafeMutableRawPointer? = nil
    private(set) var count = 0
    private var capacity = 0

    /// The bytes, valid until the next change.
    var buffer: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: self.start, count: self.count)
    }

    /// Makes room for `total` bytes in all. - Returns: false when the memory could not be had.
    mutating func reserve(_ total: Int) -> Bool {
        guard total > self.capacity else {
            return true
        }
        guard let grown = realloc(self.start, total) else {
            return false
        }
        self.start = grown
        self.capacity = total
        return true
    }

    /// Appends `count` bytes from `source`. - Returns: false when the memory could not be had.
    mutating func append(_ source: UnsafeRawPointer, count: Int) -> Bool {
        let total = self.count + count
        if total > self.capacity, !self.reserve(Swift.max(total, self.capacity * 2, 512)) {
            return false
        }
        guard let start = self.start else {
            return false
        }
        (start + self.count).copyMemory(from: source, byteCount: count)
        self.count = total
        return true
    }

    /// Forgets the bytes and keeps the memory.
    mutating func removeAll() {
        self.count = 0
    }

    /// The bytes as `Data`, which frees them when it goes; this run starts empty, with no memory.
    /// A run left more than a quarter empty (a body of unannounced length) is shrunk first.
    mutating func takeData() -> Data {
        guard let start = self.start, self.count > 0 else {
            self.removeAll()
            return Data()
        }
        var bytes = start
        if self.capacity - self.count > self.count / 4, let shrunk = realloc(start, self.count) {
            bytes = shrunk
        }
        let data = Data(bytesNoCopy: bytes, count: self.count, deallocator: .free)
        self.start = nil
        self.count = 0
        self.capacity = 0
        return data
    }

    /// Frees the memory.
    mutating func deallocate() {
        free(self.start)
        self.start = nil
        self.count = 0
        self.capacity = 0
    }
}
