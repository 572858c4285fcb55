import ArgumentParser

/// `batchfetch schema`: the JSON Schema of a command's output.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract:
            "Print the JSON Schema (draft 2020-12) of fetch records, crawl lines, bench --json reports or --series lines.",
        discussion: "The same schemas are in docs/schema/. Validate with any draft 2020-12 validator, e.g. "
            + "python3 -m jsonschema or check-jsonschema."
    )

    @Argument(
        help: "Whose output: fetch (also merge's records), crawl, bench (--json) or bench-series (--series lines).")
    var output: RecordSchema

    func run() throws {
        FileHandleOutput.standardOutput.write(self.output.text)
    }
}

extension RecordSchema: ExpressibleByArgument {}
