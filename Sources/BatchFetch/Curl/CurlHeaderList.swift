internal import CCurl

/// Owns a `curl_slist` of header lines and frees it on deinit.
///
/// libcurl does not copy the list given to `CURLOPT_HTTPHEADER`: whoever sets it keeps this object
/// alive for as long as the easy handle may use it.
final class CurlHeaderList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    /// Builds the list in libcurl's spelling: a field with an empty value as `Name;` ("send this
    /// header with no value"), one that removes (``HeaderField/removes``) as a bare `Name:`.
    init(_ fields: [HeaderField]) {
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for field in fields {
            let line =
                field.removes
                ? "\(field.name):" : field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            // curl_slist_append copies the string; on allocation failure it returns NULL and the old
            // list stays valid, so keep the old list rather than leak it.
            if let appended = curl_slist_append(list, line) {
                list = appended
            }
        }
        self.pointer = list
    }

    deinit {
        curl_slist_free_all(self.pointer)
    }
}

@available(*, unavailable)
extension CurlHeaderList: Sendable {}
