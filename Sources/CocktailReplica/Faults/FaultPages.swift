import Foundation
import NIOCore
import NIOHTTP1

/// The non-JSON bodies the replica sends: error pages, the wrong-type page, broken JSON.
enum FaultPages {
    /// The body of a 404 for an unknown endpoint (the real server answers unknown paths with HTML).
    static let notFound = ByteBuffer(
        string: "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
            + "<p>The requested URL was not found on this server.</p></body></html>\n"
    )

    /// What a CDN's challenge page looks like to an API client: a 200 that is not JSON.
    static let wrongType = ByteBuffer(
        string: "<!DOCTYPE html><html><head><title>Just a moment...</title></head>"
            + "<body><p>Checking your browser before accessing the site.</p></body></html>\n"
    )

    /// A small HTML error page for `status`.
    static func errorPage(status: Int) -> ByteBuffer {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        return ByteBuffer(
            string: "<html><head><title>\(status) \(reason)</title></head><body><h1>\(status) \(reason)</h1>"
                + "<p>The replica injected this failure.</p></body></html>\n"
        )
    }

    /// `document` cut in half with `,"` appended: never valid JSON, since a proper prefix of an
    /// object leaves at least one `{` open and the appended quote opens a string that never closes.
    static func malformed(_ document: ByteBuffer) -> ByteBuffer {
        var broken = document.getSlice(at: document.readerIndex, length: document.readableBytes / 2) ?? ByteBuffer()
        broken.writeString(",\"")
        return broken
    }

    /// The `Retry-After` value for a wait of `seconds`, in `format`.
    static func retryAfter(seconds: Int, format: ReplicaFaults.RetryAfterFormat) -> String {
        switch format {
        case .seconds:
            return String(seconds)
        case .httpDate:
            return HTTPDate.format(secondsSince1970: Int(Date().timeIntervalSince1970) + seconds)
        }
    }
}
