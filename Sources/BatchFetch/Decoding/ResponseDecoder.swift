import Foundation

/// The decoding pipeline for one kind of response: status policy → content type → envelope →
/// typed model. Runs on the caller's task, never on the engine thread.
public struct ResponseDecoder: Sendable {
    /// Which statuses are success.
    public var status: StatusPolicy
    /// Which content types are JSON enough.
    public var contentType: ContentTypePolicy
    /// Where the content sits in the document.
    public var envelope: Envelope

    /// Creates a pipeline; by default 2xx, JSON media types, and the whole document.
    public init(
        status: StatusPolicy = .successful, contentType: ContentTypePolicy = .json, envelope: Envelope = Envelope()
    ) {
        self.status = status
        self.contentType = contentType
        self.envelope = envelope
    }

    /// Checks status and content type, then finds the envelope's content.
    public func content(of response: Response) throws(FetchError) -> Envelope.Content {
        try self.status.check(response)
        try self.contentType.check(response)
        return try self.envelope.content(of: response.body)
    }

    /// Checks status and content type, then decodes the envelope's content as `T`.
    public func decode<T: Decodable>(_ type: T.Type, from response: Response) throws(FetchError) -> T {
        try self.status.check(response)
        try self.contentType.check(response)
        return try self.envelope.decode(type, from: response.body)
    }

    /// Checks status and content type, then decodes a list (empty on "no results").
    public func decodeList<T: Decodable>(_ element: T.Type, from response: Response) throws(FetchError) -> [T] {
        try self.list(in: response)?.decode([T].self) ?? []
    }

    /// Checks status and content type, then finds the envelope's list, for readers that decode
    /// it themselves (`nil` on "no results").
    public func list(in response: Response) throws(FetchError) -> JSONSlice? {
        try self.status.check(response)
        try self.contentType.check(response)
        return try self.envelope.list(in: response.body)
    }

    /// The same pipeline applied to a fetch result (a transport failure is rethrown as it is).
    public func decodeList<T: Decodable>(_ element: T.Type, from result: FetchResult) throws(FetchError) -> [T] {
        try self.decodeList(element, from: result.outcome.get())
    }
}
