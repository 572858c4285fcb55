import BatchFetch
import CocktailDB
import Foundation

/// The formats `batchfetch crawl` writes.
enum CrawlFormat: String, CaseIterable {
    /// One facet per line: `{"category":"Cocktail","drinks":[…]}`.
    case ndjson
    /// One JSON array of the NDJSON objects.
    case json
    /// One row per drink, RFC 4180 quoting, with the facet as the first column.
    case csv
    /// Facet name and drink count, for a person at a terminal.
    case table
}

/// Turns facet results into bytes of one format. Output is a pure function of the results, so
/// the same crawl always gives the same bytes (no timestamps, no timings).
struct CrawlOutput {
    let format: CrawlFormat
    let facet: Facet
    let details: Bool
    /// With `--thumbnails`: every drink's image is noted here and its record names its file.
    private(set) var thumbnails: ThumbnailPlan?
    private var emitted = 0

    init(format: CrawlFormat, facet: Facet, details: Bool, thumbnails: ThumbnailPlan? = nil) {
        self.format = format
        self.facet = facet
        self.details = details
        self.thumbnails = thumbnails
    }

    /// Bytes that open the output (before any facet).
    func header() -> [UInt8] {
        switch self.format {
        case .json: Array("[\n".utf8)
        case .csv: Array((self.columns.joined(separator: ",") + "\r\n").utf8)
        case .ndjson, .table: []
        }
    }

    /// Bytes that close the output.
    func footer() -> [UInt8] {
        self.format == .json ? Array((self.emitted == 0 ? "]\n" : "\n]\n").utf8) : []
    }

    /// How many bytes of a facet are gathered before they are handed on to be written.
    static let chunkSize = 1 << 20

    /// Appends one facet's bytes to `json`. With full records a facet is tens of megabytes at a
    /// large catalogue's scale: `flush` is called whenever `json` holds ``chunkSize`` bytes or
    /// more, and must write and empty it, so the line is never whole in memory (the records it is
    /// made of are, until it is written). The caller writes what is left at the end.
    mutating func facet(_ result: FacetResult, into json: inout JSONBytes, flush: (inout JSONBytes) -> Void) {
        defer { self.emitted += 1 }
        switch self.format {
        case .ndjson:
            self.object(result, into: &json, flush: flush)
            json.raw("\n")
        case .json:
            json.raw(self.emitted == 0 ? "  " : ",\n  ")
            self.object(result, into: &json, flush: flush)
        case .csv:
            json.raw(string: self.rows(result))
        case .table:
            for drink in result.drinks {
                switch drink {
                case .summary(let summary): _ = self.noteThumbnail(summary.thumbnail)
                case .record(let record): _ = self.noteThumbnail(record.drink.thumbnail)
                }
            }
            let count =
                result.failure == nil ? "\(result.drinks.count) items" : "FAILED: \(result.failure?.message ?? "")"
            let extra = result.sweepOnly > 0 ? " (\(result.sweepOnly) found only by the sweep)" : ""
            json.raw(string: "\(result.value.name) - \(count)\(extra)\n")
        }
    }

    /// The NDJSON object of a facet: the facet's name under its facet key, then its drinks.
    mutating func object(_ result: FacetResult, into json: inout JSONBytes, flush: (inout JSONBytes) -> Void) {
        json.raw("{")
        json.string(self.facet.rawValue)
        json.raw(":")
        json.string(result.value.name)
        if let failure = result.failure {
            json.raw(",\"drinks\":null,\"error\":{\"kind\":")
            json.string(failure.kind.rawValue)
            json.raw(",\"message\":")
            json.string(failure.message)
            json.raw(",\"url\":")
            json.string(failure.url)
            json.raw(",\"attempts\":")
            json.int(failure.attempts)
            json.raw("}}")
            return
        }
        json.raw(",\"drinks\":[")
        for (position, drink) in result.drinks.enumerated() {
            if position > 0 {
                json.raw(",")
            }
            switch drink {
            case .summary(let summary) where self.thumbnails == nil: Self.summary(summary, into: &json)
            case .record(let record) where self.thumbnails == nil: json.raw(record.json)
            case .summary(let summary):
                Self.summary(summary, into: &json, closed: false)
                self.thumbnailFile(summary.thumbnail, into: &json)
            case .record(let record):
                // The record's object, its closing brace replaced by the file's field.
                json.raw(Array(record.json.dropLast()))
                self.thumbnailFile(record.drink.thumbnail, into: &json)
            }
            if json.buffer.count >= Self.chunkSize {
                flush(&json)
            }
        }
        json.raw("]}")
    }

    /// `filter.php`'s shape: `strDrink`, `strDrinkThumb`, `idDrink`.
    static func summary(_ summary: DrinkSummary, into json: inout JSONBytes, closed: Bool = true) {
        json.raw("{\"strDrink\":")
        json.string(summary.name)
        json.raw(",\"strDrinkThumb\":")
        json.string(summary.thumbnail)
        json.raw(",\"idDrink\":")
        json.string(summary.id)
        if closed {
            json.raw("}")
        }
    }

    /// `,"thumbnailFile":PATH}`: where `--thumbnails` saves the drink's image (`null` without one),
    /// which it notes to fetch.
    private mutating func thumbnailFile(_ thumbnail: String?, into json: inout JSONBytes) {
        json.raw(",\"thumbnailFile\":")
        json.string(self.noteThumbnail(thumbnail))
        json.raw("}")
    }

    /// Notes a drink's image for `--thumbnails`; returns the path it is saved at.
    private mutating func noteThumbnail(_ thumbnail: String?) -> String? {
        guard let thumbnail, !thumbnail.isEmpty, self.thumbnails != nil else {
            return nil
        }
        self.thumbnails?.note(thumbnail)
        return self.thumbnails?.file(for: thumbnail)
    }

    private var columns: [String] {
        let base = [self.facet.rawValue, "idDrink", "strDrink"]
        let file = self.thumbnails == nil ? [] : ["thumbnailFile"]
        if self.details {
            return base + [
                "strCategory", "strAlcoholic", "strGlass", "strTags", "ingredients", "strInstructions",
                "strDrinkThumb", "dateModified",
            ] + file + ["error"]
        }
        return base + ["strDrinkThumb"] + file + ["error"]
    }

    private mutating func rows(_ result: FacetResult) -> String {
        if let failure = result.failure {
            var fields = [result.value.name] + Array(repeating: "", count: self.columns.count - 2)
            fields.append("\(failure.kind.rawValue): \(failure.message)")
            return Self.csvRow(fields)
        }
        var text = ""
        for drink in result.drinks {
            switch drink {
            case .summary(let summary):
                var fields = [result.value.name, summary.id, summary.name, summary.thumbnail ?? ""]
                if self.thumbnails != nil {
                    fields.append(self.noteThumbnail(summary.thumbnail) ?? "")
                }
                text += Self.csvRow(fields + [""])
            case .record(let json):
                let record = json.drink
                let ingredients: [String] = record.ingredients.map { ingredient in
                    guard let measure = ingredient.measure else {
                        return ingredient.name
                    }
                    return "\(ingredient.name) (\(measure))"
                }
                var fields: [String] = [result.value.name, record.id, record.name]
                fields += [record.category ?? "", record.alcoholic ?? "", record.glass ?? ""]
                fields += [record.tags.joined(separator: ","), ingredients.joined(separator: "; ")]
                fields += [record.instructions ?? "", record.thumbnail ?? "", record.value("dateModified") ?? ""]
                if self.thumbnails != nil {
                    fields.append(self.noteThumbnail(record.thumbnail) ?? "")
                }
                text += Self.csvRow(fields + [""])
            }
        }
        return text
    }

    /// One RFC 4180 record: fields with a comma, quote, CR or LF are quoted, quotes doubled.
    static func csvRow(_ fields: [String]) -> String {
        fields.map { field in
            field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",") + "\r\n"
    }
}
