extension WARCRecord {
    /// The `format` a ``warcinfo(date:filename:software:format:fields:digest:)`` record names by
    /// default (WARC 1.1 annex C's example).
    public static let formatName = "WARC File Format 1.1"

    /// A `warcinfo` record (WARC 1.1 §6.2): an `application/warc-fields` block with `software`,
    /// `format` and then `fields` in the order given (the caller's: options, robots policy, …).
    ///
    /// - Parameter filename: `WARC-Filename`, the name of the file the record opens.
    /// - Throws: ``WARCError/Kind/invalidField`` when a field cannot be a WARC field (a line break
    ///   in a value, which would start another field).
    public static func warcinfo(
        date: WARCDate,
        filename: String?,
        software: String,
        format: String = WARCRecord.formatName,
        fields: [WARCField] = [],
        digest: WARCDigest = .sha1
    ) throws -> WARCRecord {
        var block: [UInt8] = []
        for field in [WARCField("software", software), WARCField("format", format)] + fields {
            guard field.isValid else {
                throw WARCError.invalidField(field.name)
            }
            block += field.name.utf8
            block += ": ".utf8
            block += field.value.utf8
            block += "\r\n".utf8
        }
        return try WARCRecord(
            kind: .warcinfo,
            date: date,
            contentType: "application/warc-fields",
            block: block,
            digest: digest,
            fields: filename.map { [WARCField("WARC-Filename", $0)] } ?? []
        )
    }
}
