import Foundation

/// Fast reading of the commonest API shape: an array of flat objects whose values are strings,
/// numbers, booleans or null (a TheCocktailDB drink record is one of these, with ~50 fields).
///
/// Generic Codable decoding of such a record through `JSONDecoder` costs tens of times more than
/// reading the already validated bytes directly. Values that are not scalars make the
/// call throw ``FetchError/Kind/unexpectedShape``, so callers can fall back to `JSONDecoder`.
public enum FlatJSON {
    /// The objects of a validated JSON array, each as field name → value (`nil` for `null`;
    /// numbers and booleans as their JSON text).
    public static func objects(in slice: JSONSlice) throws(FetchError) -> [[String: String?]] {
        guard slice.kind == .array else {
            throw FetchError(
                kind: .unexpectedShape, message: "expected an array of objects, found \(slice.kind.withArticle)")
        }
        let outcome: Result<[[String: String?]], FetchError> = slice.withUnsafeBytes { raw in
            do throws(FetchError) {
                return .success(try Self.objects(in: raw))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The fields of one flat object in validated JSON bytes (`{…}`), as ``objects(in:)`` reads them.
    package static func object(in raw: UnsafeRawBufferPointer) throws(FetchError) -> [String: String?] {
        var scanner = FlatScanner(raw)
        return try Self.fields(&scanner)
    }

    private static func objects(in raw: UnsafeRawBufferPointer) throws(FetchError) -> [[String: String?]] {
        var scanner = FlatScanner(raw)
        var objects: [[String: String?]] = []
        guard try scanner.openArray() else {
            return objects
        }
        repeat {
            objects.append(try Self.fields(&scanner))
        } while try scanner.nextObject()
        return objects
    }

    private static func fields(_ scanner: inout FlatScanner) throws(FetchError) -> [String: String?] {
        var fields: [String: String?] = [:]
        fields.reserveCapacity(64)
        guard try scanner.openObject() else {
            return fields
        }
        repeat {
            let field = try scanner.field()
            let key = scanner.text(field.key, escaped: field.keyEscaped)
            switch field.kind {
            case .null: fields[key] = .some(nil)
            case .string, .literal: fields[key] = .some(scanner.text(field.value, escaped: field.valueEscaped))
            }
        } while try scanner.nextField()
        return fields
    }
}
