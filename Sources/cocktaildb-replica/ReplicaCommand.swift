import ArgumentParser
import CocktailReplica
import Dispatch
import Foundation

/// `cocktaildb-replica`: serves the replica until SIGINT or SIGTERM.
@main
struct ReplicaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cocktaildb-replica",
        abstract: "A local, deterministic replica of TheCocktailDB v1 with fault injection.",
        discussion: """
            Serves /api/json/v1/{key}/ (list, filter, lookup, search, random), the drinks' images at \
            /images/media/drink/SLUG.jpg with /small, /medium and /large previews (JPEG, 700, 700, 350 \
            and 100 px), and /__replica/stats. The first line on stdout is \
            'listening http://HOST:PORT/api/json/v1/1/'. The same --seed and --scale give \
            byte-identical responses and images; fault decisions are seeded too.
            """
    )

    @Option(help: "Address to bind. Only loopback addresses are bound unless this is given explicitly.")
    var host: String?

    @Option(help: "Port to bind; 0 picks a free one.")
    var port: Int = 0

    @Option(help: "Catalogue size relative to the real one (1 ≈ 635 drinks).")
    var scale: Double = 1

    @Option(help: "Seed of the catalogue and of the fault decisions.")
    var seed: UInt64 = Catalogue.defaultSeed

    @Option(help: "Event loop threads.")
    var threads: Int = 1

    @Option(help: "Most items per list/filter/search response (the free key's cap is 100); 0 = none.")
    var resultCap: Int = 100

    @Option(help: ArgumentHelp("Fraction of drinks served with \"\" instead of null in unused slots.", valueName: "P"))
    var legacyRate: Double = 0

    @Flag(help: "Send no ETag/Last-Modified and ignore conditional requests (like the real API).")
    var noValidators = false

    @Flag(
        help: ArgumentHelp(
            "Point strDrinkThumb at this replica (http://HOST:PORT/images/media/drink/SLUG.jpg) "
                + "instead of www.thecocktaildb.com, so thumbnail downloads stay local."
        )
    )
    var selfHostedImages = false

    @Option(help: ArgumentHelp("Serve FILE at /robots.txt (without it: 404, as the real API).", valueName: "FILE"))
    var robotsTxt: String?

    @OptionGroup(title: "Faults")
    var faults: FaultOptions

    func validate() throws {
        do {
            try self.makeConfiguration().validate()
        } catch let error as ReplicaError {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let signals = SignalWaiter.install()
        let server: ReplicaServer
        do {
            server = try await ReplicaServer.start(try self.makeConfiguration())
        } catch let error as ReplicaError {
            Self.writeStandardError("cocktaildb-replica: \(error.message)\n")
            throw ExitCode.failure
        }
        // Flushed at once: scripts wait for this line to learn the port.
        FileHandle.standardOutput.write(Data("listening \(server.baseURL)\n".utf8))
        Self.writeStandardError(
            "cocktaildb-replica: \(server.catalogue.drinks.count) drinks in \(server.catalogue.categories.count) "
                + "categories (seed \(self.seed), scale \(self.scale)); stats at \(server.statsURL)\n"
        )
        let signal = await signals.wait()
        try await server.shutdown()
        Self.writeStandardError("cocktaildb-replica: stopped on signal \(signal)\n")
    }

    private func makeConfiguration() throws -> ReplicaConfiguration {
        var configuration = ReplicaConfiguration(
            host: self.host ?? "127.0.0.1",
            port: self.port,
            allowsNonLoopbackHost: self.host != nil,
            threads: self.threads,
            seed: self.seed,
            scale: self.scale,
            resultCap: self.resultCap,
            legacyRate: self.legacyRate,
            faults: try self.faults.makeFaults(),
            validators: !self.noValidators,
            selfHostedImages: self.selfHostedImages
        )
        if let path = self.robotsTxt {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("cannot read --robots-txt \(path)")
            }
            configuration.robotsTxt = text
        }
        return configuration
    }

    private static func writeStandardError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
