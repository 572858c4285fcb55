import BatchFetch
import Benchmark
import CocktailDB
import CocktailReplica
import Foundation

// Documents as the replica serves them: a lookup (~1.5 KB), a category filter (~100 summaries),
// and a first-letter search (many full records, tens of KB).
let documents: [(name: String, body: Data, key: String)] = try await ReplicaServer.withServer { server in
    try await withEngine { engine in
        let first = server.catalogue.drinks[0].id
        var out: [(String, Data, String)] = []
        for (name, path) in [
            ("lookup", "lookup.php?i=\(first)"), ("filter", "filter.php?c=Cocktail"), ("search", "search.php?f=s"),
        ] {
            let result = await engine.fetch(Request(server.url(path)))
            guard let body = result.response?.body else {
                throw FetchError(kind: .other, message: "could not fetch \(path): \(String(describing: result.error))")
            }
            out.append((name, body, "drinks"))
        }
        return out
    }
}

struct Summary: Decodable {
    let idDrink: String
    let strDrink: String
    let strDrinkThumb: String?
}

for (name, body, key) in documents {
    let envelope = Envelope(key)
    benchmark("\(name) \(body.count) B: envelope scan (validate + slice)") { state in
        try state.measure {
            _ = try? envelope.content(of: body)
        }
    }
    benchmark("\(name) \(body.count) B: JSONSerialization") { state in
        try state.measure {
            _ = try? JSONSerialization.jsonObject(with: body)
        }
    }
    // The crawl's readers: the whole pipeline a response goes through (status, content type,
    // envelope scan, then the fast reader), as the crawl calls it.
    let response = Response(
        status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body, effectiveURL: "")
    if name == "filter" {
        benchmark("\(name) \(body.count) B: envelope + JSONDecoder [DrinkSummary]") { state in
            try state.measure {
                _ = try? envelope.decodeList(Summary.self, from: body)
            }
        }
        benchmark("\(name) \(body.count) B: CocktailDBClient.summaries (crawl)") { state in
            try state.measure {
                _ = try? CocktailDBClient.summaries(from: response, endpoint: .filter(by: .category, value: "Cocktail"))
            }
        }
    } else {
        benchmark("\(name) \(body.count) B: CocktailDBClient.drinks ([Drink] from the bytes)") { state in
            try state.measure {
                _ = try? CocktailDBClient.drinks(from: response, endpoint: .searchByFirstLetter("s"))
            }
        }
        benchmark("\(name) \(body.count) B: CocktailDBClient.records ([DrinkRecord], crawl)") { state in
            try state.measure {
                _ = try? CocktailDBClient.records(from: response, endpoint: .searchByFirstLetter("s"))
            }
        }
        benchmark("\(name) \(body.count) B: envelope + JSONDecoder [Drink]") { state in
            try state.measure {
                _ = try? envelope.decodeList(Drink.self, from: body)
            }
        }
    }
}

benchmark("Reassembler: 10,000 out-of-order inserts and pops (window 256)") { state in
    var order = Array(0..<10_000)
    for block in stride(from: 0, to: order.count, by: 64) {
        order[block..<min(block + 64, order.count)].reverse()
    }
    try state.measure {
        var reassembler = Reassembler<Int>(window: 256)
        var out = 0
        for index in order {
            try? reassembler.insert(index, at: index)
            while let value = reassembler.popNext() {
                out &+= value
            }
        }
        precondition(out == 49_995_000)
    }
}

// The same lookup without `\/` escapes, to see what re-escaping costs the crawl's reader.
if let lookup = documents.first(where: { $0.name == "lookup" }) {
    let plain = Data(String(decoding: lookup.body, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/").utf8)
    let response = Response(
        status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: plain, effectiveURL: "")
    benchmark("lookup \(plain.count) B without \\/: CocktailDBClient.records") { state in
        try state.measure {
            _ = try? CocktailDBClient.records(from: response, endpoint: .searchByFirstLetter("s"))
        }
    }
}

print("documents: " + documents.map { "\($0.name) \($0.body.count) bytes" }.joined(separator: ", "))
print("MB/s = bytes / time: divide each document's size by the median time below.")
Benchmark.main()
