import Testing

@testable import CocktailReplica

/// The writer escapes like the real server's PHP backend.
struct JSONWriterTests {
    private func render(_ value: String?) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("k", value)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func slashesAreEscapedAndNullIsWritten() {
        #expect(self.render("a/b") == #"{"k":"a\/b"}"#)
        #expect(self.render(nil) == #"{"k":null}"#)
    }

    @Test func nonASCIIBecomesLowercaseUTF16Escapes() {
        #expect(self.render("Crème") == #"{"k":"Cr\u00e8me"}"#)
        #expect(self.render("摇") == #"{"k":"\u6447"}"#)
        #expect(self.render("🍹") == #"{"k":"\ud83c\udf79"}"#)
    }

    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect(self.render("\"\\\n\r\t\u{08}\u{0C}\u{01}") == #"{"k":"\"\\\n\r\t\b\f\u0001"}"#)
    }

    @Test func arraysAndNestedObjectsAreCommaSeparated() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("drinks")
        writer.beginArray()
        for name in ["a", "b"] {
            writer.beginObject()
            writer.field("x", name)
            writer.field("y", nil)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"drinks":[{"x":"a","y":null},{"x":"b","y":null}]}"#)
    }
}
