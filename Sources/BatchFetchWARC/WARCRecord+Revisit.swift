extension WARCRecord {
    /// Why a `revisit` record stores no payload (WARC 1.1 §6.7.2, 6.7.3), with what it refers to.
    public enum RevisitProfile: Sendable, Equatable {
        /// The payload equals one already archived: its payload digest, and that capture's record
        /// ID (when known), target URI and date (`WARC-Refers-To…`), which dedup readers follow.
        case identicalPayloadDigest(
            payloadDigest: String, refersTo: String?, refersToTargetURI: String, refersToDate: WARCDate)
        /// The server said the resource had not changed (a `304` to a conditional request).
        case serverNotModified(refersTo: String?, refersToTargetURI: String?, refersToDate: WARCDate?)

        /// `WARC-Profile`: the profile's URI as WARC 1.1 names it.
        public var uri: String {
            switch self {
            case .identicalPayloadDigest: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
            case .serverNotModified: "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
            }
        }

        var fields: [WARCField] {
            var fields = [WARCField("WARC-Profile", self.uri)]
            switch self {
            case .identicalPayloadDigest(let payloadDigest, let refersTo, let targetURI, let date):
                fields += refersTo.map { [WARCField("WARC-Refers-To", $0)] } ?? []
                fields += [
                    WARCField("WARC-Refers-To-Target-URI", targetURI), WARCField("WARC-Refers-To-Date", date.warcText),
                    WARCField("WARC-Payload-Digest", payloadDigest),
                ]
            case .serverNotModified(let refersTo, let targetURI, let date):
                fields += refersTo.map { [WARCField("WARC-Refers-To", $0)] } ?? []
                fields += targetURI.map { [WARCField("WARC-Refers-To-Target-URI", $0)] } ?? []
                fields += date.map { [WARCField("WARC-Refers-To-Date", $0.warcText)] } ?? []
            }
            return fields
        }
    }

    /// A `revisit` record for `targetURI`: the response's status line and header fields as
    /// received (see ``HTTPBlock``), no body, and the profile's fields.
    ///
    /// - Throws: ``WARCError/Kind/invalidField`` when `targetURI` or a field cannot be a WARC field.
    public static func revisit(
        targetURI: String,
        date: WARCDate,
        statusLine: [UInt8],
        headerBytes: [UInt8],
        profile: RevisitProfile,
        options: ExchangeOptions = ExchangeOptions()
    ) throws -> WARCRecord {
        let block = HTTPBlock.response(statusLine: statusLine, headerBytes: headerBytes, body: [])
        return try WARCRecord(
            kind: .revisit,
            date: date,
            targetURI: targetURI,
            contentType: "application/http;msgtype=response",
            block: block.bytes,
            digest: options.digest,
            fields: profile.fields + options.warcFields
        )
    }
}
