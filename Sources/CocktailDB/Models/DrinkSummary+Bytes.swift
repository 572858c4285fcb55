import BatchFetch

extension DrinkSummary {
    /// The summaries of a validated JSON array of `filter.php` objects, read from its bytes with
    /// only the three fields kept as `String`s, or `nil` when an object is not flat or lacks
    /// `idDrink` or `strDrink` (the caller then decodes with `JSONDecoder`, for its error).
    ///
    /// A `filter.php` list of a large catalogue holds thousands of objects; reading each into a
    /// `[String: String?]` first cost a dictionary per drink, and most of a crawl's memory.
    static func summaries(in list: UnsafeRawBufferPointer) -> [DrinkSummary]? {
        var scanner = FlatScanner(list)
        var summaries: [DrinkSummary] = []
        do throws(FetchError) {
            guard try scanner.openArray() else {
                return summaries
            }
            repeat {
                // Found fields; a repeated key counts once, its last value, as in a dictionary.
                var id: String?? = nil
                var name: String?? = nil
                var thumbnail: String?? = nil
                if try scanner.openObject() {
                    repeat {
                        let field = try scanner.field()
                        let value: String? =
                            field.isNull ? nil : scanner.text(field.value, escaped: field.valueEscaped)
                        switch Key(scanner.bytes, field) {
                        case .id: id = .some(value)
                        case .name: name = .some(value)
                        case .thumbnail: thumbnail = .some(value)
                        case nil: break
                        }
                    } while try scanner.nextField()
                }
                guard let id = id ?? nil, let name = name ?? nil else {
                    return nil
                }
                summaries.append(DrinkSummary(id: id, name: name, thumbnail: thumbnail ?? nil))
            } while try scanner.nextObject()
        } catch {
            return nil
        }
        return summaries
    }

    private enum Key {
        case id, name, thumbnail

        init?(_ bytes: UnsafeRawBufferPointer, _ field: FlatField) {
            let key = UnsafeRawBufferPointer(rebasing: bytes[field.key])
            if field.keyEscaped {
                // Rare: an escaped key is compared as text.
                switch FlatScanner(bytes).text(field.key, escaped: true) {
                case "idDrink": self = .id
                case "strDrink": self = .name
                case "strDrinkThumb": self = .thumbnail
                default: return nil
                }
            } else if key.elementsEqual("idDrink".utf8) {
                self = .id
            } else if key.elementsEqual("strDrink".utf8) {
                self = .name
            } else if key.elementsEqual("strDrinkThumb".utf8) {
                self = .thumbnail
            } else {
                return nil
            }
        }
    }
}
