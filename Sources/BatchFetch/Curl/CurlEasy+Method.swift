internal import CCurl

extension CurlEasy {
    /// Sets the URL, the header fields (but those named in `removing`, lower-case) and the method
    /// and body of `request`: the transfer's own, or a redirect's next hop.
    func send(_ request: Request, removing: Set<String> = []) -> FetchError? {
        let h = self.rawHandle
        // An international host goes to libcurl in its ASCII form: see IDNA for why not libcurl's.
        let url: String
        do throws(FetchError) {
            url = try IDNA.asciiURL(request.url) ?? request.url
        } catch {
            return error
        }
        let urlCode = ccurl_easy_setopt_string(h, CURLOPT_URL, url)
        guard urlCode == CURLE_OK else {
            return FetchError(curlCode: urlCode, detail: "")
        }
        self.setRequestHeaders(request.headers, removing: removing)
        return self.setMethod(request)
    }

    /// Sets the method and the body for `request`.
    /// - Returns: why it cannot be sent (its body file cannot be opened), or `nil`.
    func setMethod(_ request: Request) -> FetchError? {
        let h = self.rawHandle
        if request.method == .get && !request.hasBody {
            if !self.usesPlainGet {
                _ = ccurl_easy_setopt_long(h, CURLOPT_HTTPGET, 1)
                _ = ccurl_easy_setopt_string(h, CURLOPT_CUSTOMREQUEST, nil)
                self.usesPlainGet = true
            }
            return nil
        }
        // Back to a clean GET first, so nothing of the previous request's method lingers.
        _ = ccurl_easy_setopt_long(h, CURLOPT_HTTPGET, 1)
        _ = ccurl_easy_setopt_string(h, CURLOPT_CUSTOMREQUEST, nil)
        self.usesPlainGet = false
        if request.method == .head {
            _ = ccurl_easy_setopt_long(h, CURLOPT_NOBODY, 1)
            return nil
        }
        if let path = request.bodyFile {
            let size: Int64
            do throws(FetchError) {
                size = try self.upload.pointee.open(path)
            } catch {
                return error
            }
            // No fields: libcurl reads the body through the read callback, `size` bytes of it.
            _ = ccurl_easy_setopt_pointer(h, CURLOPT_POSTFIELDS, nil)
            _ = ccurl_easy_setopt_long(h, CURLOPT_POST, 1)
            _ = ccurl_easy_setopt_off_t(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(size))
        } else if let body = request.body, !body.isEmpty {
            _ = ccurl_easy_setopt_off_t(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS copies the bytes (plain POSTFIELDS would keep our pointer past this call).
            let code = body.withUnsafeBytes { bytes in
                ccurl_easy_setopt_pointer(
                    h, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            guard code == CURLE_OK else {
                return FetchError(curlCode: code, detail: "")
            }
        } else if request.method == .post || request.body != nil {
            // An empty array may have no address, which libcurl would take for "no fields".
            _ = ccurl_easy_setopt_off_t(h, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            _ = ccurl_easy_setopt_string(h, CURLOPT_COPYPOSTFIELDS, "")
        }
        if request.method != .post {
            _ = ccurl_easy_setopt_string(h, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        return nil
    }
}
