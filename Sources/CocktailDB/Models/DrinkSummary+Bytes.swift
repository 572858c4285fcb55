import BatchFetch
import Foundation

extension DrinkSummary {
    /// The summaries of a validated JSON array of `filter.php` objects, read from its bytes with
    /// only the three fields kept as `String`s, or `nil` when an object is not flat or lacks
    /// `idDrink` or `strDrink` (the caller then decodes with `JSONDecoder`, for its error).
    ///
    /// A `filter.php` list of a large catalogue holds thousands of objects; reading each into a
    /// `[String: String?]` first cost a dictionary per drink, and most of a crawl's memory.
    static func summaries(in list: UnsafeRawBufferPointer) -> [DrinkSummary]? {
        Self.read(list) { scanner, id, name, thumbnail in
            DrinkSummary(
                id: id, name: scanner.text(name.value, escaped: name.valueEscaped),
                thumbnail: thumbnail.flatMap { $0.isNull ? nil : scanner.text($0.value, escaped: $0.valueEscaped) })
        }
    }

    /// The ids alone of the summaries ``summaries(in:)`` reads (`nil` where it gives `nil`): a
    /// crawl with full records needs nothing else of a list, and a thumbnail's `\/` escapes made
    /// its `String` the dearest part of reading a summary.
    static func ids(in list: UnsafeRawBufferPointer) -> [String]? {
        Self.read(list) { _, id, _, _ in id }
    }

    /// Reads each object's `idDrink`, `strDrink` and `strDrinkThumb` (a repeated key counts once,
    /// its last value, as in a dictionary) and makes an element of the id's text and the other
    /// two fields, which `make` reads only if it needs them.
    private static func read<Element>(
        _ list: UnsafeRawBufferPointer,
        make: (FlatScanner, String, FlatField, FlatField?) -> Element
    ) -> [Element]? {
        var scanner = FlatScanner(list)
        var elements: [Element] = []
        do throws(FetchError) {
            guard try scanner.openArray() else {
                return elements
            }
            repeat {
                var id: FlatField? = nil
                var name: FlatField? = nil
                var thumbnail: FlatField? = nil
                if try scanner.openObject() {
                    repeat {
                        let field = try scanner.field()
                        switch Key(scanner.bytes, field) {
                        case .id: id = field
                        case .name: name = field
                        case .thumbnail: thumbnail = field
                        case nil: break
                        }
                    } while try scanner.nextField()
                }
                guard let id, !id.isNull, let name, !name.isNull else {
                    return nil
                }
                elements.append(make(scanner, scanner.text(id.value, escaped: id.valueEscaped), name, thumbnail))
            } while try scanner.nextObject()
        } catch {
            return nil
        }
        return elements
    }

    private enum Key {
        case id, name, thumbnail

        init?(_ bytes: UnsafeRawBufferPointer, _ field: FlatField) {
            if field.keyEscaped {
                // Rare: an escaped key is compared as text.
                switch FlatScanner(bytes).text(field.key, escaped: true) {
                case "idDrink": self = .id
                case "strDrink": self = .name
                case "strDrinkThumb": self = .thumbnail
                default: return nil
                }
                return
            }
            // By length, then bytes: no String per key.
            let key = UnsafeRawBufferPointer(rebasing: bytes[field.key])
            switch key.count {
            case 7 where Self.equal(key, "idDrink"): self = .id
            case 8 where Self.equal(key, "strDrink"): self = .name
            case 13 where Self.equal(key, "strDrinkThumb"): self = .thumbnail
            default: return nil
            }
        }

        private static func equal(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
            guard let base = key.baseAddress else {
                return false
            }
            return memcmp(base, name.utf8Start, name.utf8CodeUnitCount) == 0
        }
    }
}
