/// The JSON Schemas (draft 2020-12) of what the commands write: `fetch` records, `crawl` lines and
/// `bench --json` reports, `bench --series` lines. `batchfetch schema` prints them; docs/schema/ keeps copies that a test
/// holds equal to these, and the test suite validates real outputs against them.
///
/// Objects are closed (`additionalProperties: false`): a field a command starts writing must be
/// added here, or the validation tests fail.
enum RecordSchema: String, CaseIterable {
    case fetch, crawl, bench
    /// A line of `bench --series`, also each item of the report's `series`.
    case benchSeries = "bench-series"

    /// The file under docs/schema/ that keeps a copy.
    var fileName: String { "\(self.rawValue).schema.json" }

    var text: String {
        switch self {
        case .fetch: Self.fetchRecord
        case .crawl: Self.crawlLine
        case .bench: Self.benchReport
        case .benchSeries: Self.benchSeriesLine
        }
    }

    private static let fetchRecord = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "urn:batchfetch:schema:fetch",
          "title": "batchfetch fetch record",
          "description": "One line of `batchfetch fetch` output (NDJSON): the answer to one input line. `merge` writes the same records.",
          "type": "object",
          "required": ["index", "url", "status", "ok", "attempts", "bytes", "time_ms", "total_ms", "content_type", "error"],
          "properties": {
            "index": {"description": "The input line's position among request lines, from 0.", "type": "integer", "minimum": 0},
            "id": {"description": "The JSON request line's `id`, as given (any JSON value); absent without one."},
            "meta": {"description": "The JSON request line's `meta`, as given (any JSON value); absent without one."},
            "url": {"description": "The URL as given, credentials redacted.", "type": "string"},
            "status": {"description": "The final HTTP status, also when the transfer failed after it arrived; null when none arrived.", "type": ["integer", "null"], "minimum": 100, "maximum": 999},
            "ok": {"description": "Whether the status is accepted (--status) and the body could be used.", "type": "boolean"},
            "shared_with": {"description": "Present only on a record answered by another record's transfer (the same request listed again): that record's index.", "type": "integer", "minimum": 0},
            "attempts": {"description": "Attempts sent for this record (0: nothing sent: invalid, answered from the cache, or shared).", "type": "integer", "minimum": 0},
            "bytes": {"description": "Body bytes received (decoded).", "type": "integer", "minimum": 0},
            "time_ms": {"description": "The last attempt's time in milliseconds; null when no response.", "type": ["number", "null"], "minimum": 0},
            "total_ms": {"description": "The whole request's time in milliseconds: every attempt and the waits between them; null when nothing was sent.", "type": ["number", "null"], "minimum": 0},
            "content_type": {"description": "The response's Content-Type (the last one when repeated).", "type": ["string", "null"]},
            "body": {"description": "The body per --body: embedded JSON, a string, base64 (then body_encoding), or null."},
            "body_encoding": {"description": "Present when body is base64.", "const": "base64"},
            "file": {"description": "With --save-dir: the saved body's path; null when not saved.", "type": ["string", "null"]},
            "sha256": {"description": "With --save-dir: the saved body's SHA-256, lower-case hex; null when not saved.", "type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
            "error": {
              "description": "Why the record is not ok; null when it is.",
              "oneOf": [
                {"type": "null"},
                {
                  "type": "object",
                  "required": ["kind", "message"],
                  "properties": {
                    "kind": {"description": "A stable category: invalidURL, invalidRequest, unsupportedScheme, invalidHeader, dnsFailure, connectFailed, hostUnreachable, timeout, tlsFailure, tooLarge, tooManyRedirects, transport, invalidResponse, httpStatus, cancelled, interrupted, emptyBody, invalidJSON, wrongContentType, missingKey, unexpectedShape, notCached, fileWrite, robotsDisallowed, robotsUnreachable, robotsCrawlDelay, other, …", "type": "string", "pattern": "^[a-z][A-Za-z0-9]*$"},
                    "message": {"description": "What happened, for a person; never credentials.", "type": "string"},
                    "robots_url": {"description": "robots… kinds (--robots): the robots.txt that decided.", "type": "string"},
                    "rule": {"description": "robotsDisallowed: the deciding rule as written, e.g. Disallow: /tmp/.", "type": ["string", "null"]},
                    "line": {"description": "robotsDisallowed: the rule's line in robots.txt.", "type": ["integer", "null"], "minimum": 1}
                  },
                  "additionalProperties": false
                }
              ]
            },
            "cache": {"description": "With --cache: where the response came from.", "enum": ["hit", "revalidated", "miss"]},
            "headers": {"description": "--fields headers: the final response's header fields as curl's %{header_json}: names lower-cased, each with its values in order; null when no response arrived.", "type": ["object", "null"], "additionalProperties": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
            "redirects": {
              "description": "--fields redirects: each redirect followed, in order (the URL answered and its status).",
              "type": "array",
              "items": {
                "type": "object",
                "required": ["url", "status"],
                "properties": {"url": {"type": "string"}, "status": {"type": "integer", "minimum": 300, "maximum": 399}},
                "additionalProperties": false
              }
            },
            "final_url": {"description": "--fields redirects: the URL the final response came from, credentials redacted; null when nothing was sent.", "type": ["string", "null"]},
            "timings": {
              "description": "--fields timings: the final attempt's phases in milliseconds (dns + connect + tls + first_byte + download = total), its wait in the queue, and the whole request's time with retries; null on a record whose own transfer did not run (shared, cached, refused).",
              "type": ["object", "null"],
              "required": ["queue_ms", "dns_ms", "connect_ms", "tls_ms", "first_byte_ms", "download_ms", "total_ms", "request_ms"],
              "properties": {
                "queue_ms": {"type": "number", "minimum": 0},
                "dns_ms": {"type": "number", "minimum": 0},
                "connect_ms": {"type": "number", "minimum": 0},
                "tls_ms": {"type": "number", "minimum": 0},
                "first_byte_ms": {"type": "number", "minimum": 0},
                "download_ms": {"type": "number", "minimum": 0},
                "total_ms": {"type": "number", "minimum": 0},
                "request_ms": {"type": "number", "minimum": 0}
              },
              "additionalProperties": false
            },
            "remote": {
              "description": "--fields remote: the peer of the final attempt; null when no connection was made.",
              "type": ["object", "null"],
              "required": ["ip", "port", "http_version", "reused"],
              "properties": {
                "ip": {"type": "string"},
                "port": {"type": "integer", "minimum": 0, "maximum": 65535},
                "http_version": {"description": "The version the response came over; null when none arrived.", "enum": ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3", null]},
                "reused": {"description": "Whether the attempt reused an open connection.", "type": "boolean"}
              },
              "additionalProperties": false
            },
            "tls": {
              "description": "--fields tls: the TLS session of the final attempt; null over plain HTTP or when none was made.",
              "type": ["object", "null"],
              "required": ["version", "cipher", "certificate_expires"],
              "properties": {
                "version": {"description": "As OpenSSL names it, e.g. TLSv1.3.", "type": "string"},
                "cipher": {"type": ["string", "null"]},
                "certificate_expires": {"description": "The server certificate's notAfter, RFC 3339 UTC.", "type": ["string", "null"]}
              },
              "additionalProperties": false
            },
            "attempt_log": {
              "description": "--fields attempts: every attempt of this record's own transfer, in order; empty when it sent none of its own.",
              "type": "array",
              "items": {
                "type": "object",
                "required": ["status", "error", "retry_after_ms", "time_ms"],
                "properties": {
                  "status": {"type": ["integer", "null"]},
                  "error": {
                    "oneOf": [
                      {"type": "null"},
                      {"type": "object", "required": ["kind", "message"], "properties": {"kind": {"type": "string"}, "message": {"type": "string"}}, "additionalProperties": false}
                    ]
                  },
                  "retry_after_ms": {"description": "The wait the server asked for (Retry-After), when it did.", "type": ["number", "null"], "minimum": 0},
                  "time_ms": {"type": ["number", "null"], "minimum": 0}
                },
                "additionalProperties": false
              }
            },
            "robots": {
              "description": "--robots report, or --fields robots: the verdict of the URL's robots.txt; null where none was read.",
              "type": ["object", "null"],
              "required": ["allowed", "rule"],
              "properties": {
                "allowed": {"type": "boolean"},
                "rule": {"description": "The deciding rule as written; null when none matched.", "type": ["string", "null"]}
              },
              "additionalProperties": false
            },
            "warc": {
              "description": "--fields warc: where --warc put the final response record; a copy (shared_with) names its owner's; null when nothing was archived.",
              "type": ["object", "null"],
              "required": ["file", "offset", "length", "record_id"],
              "properties": {
                "file": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "length": {"type": "integer", "minimum": 1},
                "record_id": {"type": "string"}
              },
              "additionalProperties": false
            }
          },
          "additionalProperties": false,
          "oneOf": [
            {"required": ["body"], "not": {"anyOf": [{"required": ["file"]}, {"required": ["sha256"]}]}},
            {"required": ["file", "sha256"], "not": {"required": ["body"]}}
          ],
          "dependentRequired": {"body_encoding": ["body"]},
          "if": {"properties": {"ok": {"const": true}}},
          "then": {"properties": {"error": {"type": "null"}}},
          "else": {"properties": {"error": {"type": "object"}}}
        }

        """

    private static let crawlLine = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "urn:batchfetch:schema:crawl",
          "title": "batchfetch crawl line",
          "description": "One line of `batchfetch crawl` NDJSON output (or one element of --format json): a facet value and its drinks, in the API's list order.",
          "type": "object",
          "minProperties": 2,
          "properties": {
            "category": {"type": "string"},
            "glass": {"type": "string"},
            "ingredient": {"type": "string"},
            "alcoholic": {"type": "string"},
            "drinks": {
              "description": "The facet's drinks; null when the facet failed after retries (then error says why).",
              "oneOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/drink"}}]
            },
            "error": {
              "type": "object",
              "required": ["kind", "message", "url", "attempts"],
              "properties": {
                "kind": {"type": "string"},
                "message": {"type": "string"},
                "url": {"type": "string"},
                "attempts": {"type": "integer", "minimum": 0}
              },
              "additionalProperties": false
            }
          },
          "required": ["drinks"],
          "additionalProperties": false,
          "oneOf": [
            {"required": ["category"]}, {"required": ["glass"]}, {"required": ["ingredient"]}, {"required": ["alcoholic"]}
          ],
          "if": {"properties": {"drinks": {"type": "null"}}},
          "then": {"required": ["error"]},
          "else": {"not": {"required": ["error"]}},
          "$defs": {
            "drink": {
              "description": "A drink as the filter list gives it (strDrink, strDrinkThumb, idDrink), or with --details the API's full record (every str* field, string or null) plus ingredients and tags; with --thumbnails also thumbnailFile.",
              "type": "object",
              "required": ["idDrink", "strDrink"],
              "properties": {
                "idDrink": {"type": "string"},
                "strDrink": {"type": "string"},
                "strDrinkThumb": {"type": ["string", "null"]},
                "ingredients": {
                  "type": "array",
                  "items": {
                    "type": "object",
                    "required": ["name", "measure"],
                    "properties": {"name": {"type": "string"}, "measure": {"type": ["string", "null"]}},
                    "additionalProperties": false
                  }
                },
                "tags": {"type": "array", "items": {"type": "string"}},
                "thumbnailFile": {"description": "With --thumbnails: the saved image's path; null when it could not be saved.", "type": ["string", "null"]}
              },
              "patternProperties": {"^str[A-Za-z0-9-]+$": {"type": ["string", "null"]}, "^dateModified$": {"type": ["string", "null"]}},
              "additionalProperties": false
            }
          }
        }

        """

    private static let benchReport = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "urn:batchfetch:schema:bench",
          "title": "batchfetch bench report",
          "description": "The object `batchfetch bench --json` prints: counts, throughput, latency percentiles (HDR histogram, microsecond resolution) and phase medians. Durations in milliseconds unless the key says otherwise.",
          "type": "object",
          "required": ["mode", "concurrency", "rate", "requests", "ok", "failed", "duration_s", "requests_per_second", "bytes", "megabytes_per_second", "connections", "retries", "statuses", "errors", "protocols", "latency_ms", "phases_ms", "histogram"],
          "properties": {
            "mode": {"enum": ["closed-loop", "open-loop"]},
            "concurrency": {"type": "integer", "minimum": 1},
            "rate": {"description": "Open loop: the intended requests per second; null in a closed loop.", "type": ["number", "null"]},
            "requests": {"type": "integer", "minimum": 0},
            "ok": {"type": "integer", "minimum": 0},
            "failed": {"type": "integer", "minimum": 0},
            "duration_s": {"type": "number", "minimum": 0},
            "requests_per_second": {"type": "number", "minimum": 0},
            "bytes": {"type": "integer", "minimum": 0},
            "megabytes_per_second": {"type": "number", "minimum": 0},
            "connections": {"description": "Connections opened, failed attempts' included.", "type": "integer", "minimum": 0},
            "retries": {"type": "integer", "minimum": 0},
            "statuses": {"type": "object", "propertyNames": {"pattern": "^[0-9]{3}$"}, "additionalProperties": {"type": "integer", "minimum": 0}},
            "errors": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "protocols": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
            "latency_ms": {
              "description": "Null when no response arrived.",
              "oneOf": [
                {"type": "null"},
                {
                  "type": "object",
                  "required": ["min", "mean", "stdev", "p50", "p90", "p99", "p99_9", "max"],
                  "properties": {
                    "min": {"type": "number"}, "mean": {"type": "number"}, "stdev": {"type": "number"},
                    "p50": {"type": "number"}, "p90": {"type": "number"}, "p99": {"type": "number"},
                    "p99_9": {"type": "number"}, "max": {"type": "number"}
                  },
                  "additionalProperties": false
                }
              ]
            },
            "phases_ms": {
              "type": "object",
              "required": ["dns", "connect", "tls", "first_byte", "total", "new_connection_samples"],
              "properties": {
                "dns": {"type": ["number", "null"]}, "connect": {"type": ["number", "null"]},
                "tls": {"type": ["number", "null"]}, "first_byte": {"type": ["number", "null"]},
                "total": {"type": ["number", "null"]}, "new_connection_samples": {"type": "integer", "minimum": 0}
              },
              "additionalProperties": false
            },
            "histogram": {
              "type": "array",
              "items": {
                "type": "object",
                "required": ["from_ms", "to_ms", "count"],
                "properties": {"from_ms": {"type": "number"}, "to_ms": {"type": "number"}, "count": {"type": "integer", "minimum": 0}},
                "additionalProperties": false
              }
            },
            "settings": {
              "description": "How the run was made. Absent from reports of batchfetch before the time series.",
              "type": "object",
              "required": ["label", "start_time", "distinct_requests", "stop_requests", "stop_duration_s", "interval_s", "retries", "runs", "stages"],
              "properties": {
                "label": {"description": "--label, or null.", "type": ["string", "null"]},
                "start_time": {"description": "Seconds since the Unix epoch (the earliest run's, when merged).", "type": "number"},
                "distinct_requests": {"type": "integer", "minimum": 0},
                "stop_requests": {"description": "-n, or null when the run had a duration.", "type": ["integer", "null"], "minimum": 1},
                "stop_duration_s": {"description": "-d in seconds, or null when the run had a count.", "type": ["number", "null"], "minimum": 0},
                "interval_s": {"description": "The series' interval in seconds.", "type": "number", "exclusiveMinimum": 0},
                "retries": {"type": "integer", "minimum": 0},
                "runs": {"description": "Runs merged into this report (1 for a run of its own).", "type": "integer", "minimum": 1},
                "stages": {"description": "--stages as given (open-loop ramps), or null.", "type": ["string", "null"]}
              },
              "additionalProperties": false
            },
            "histograms": {
              "description": "The whole run's HDR histograms in HdrHistogram's compressed V2 encoding, base64 (values in microseconds): readable by HdrHistogram's libraries, exact to add.",
              "type": "object",
              "required": ["latency", "service"],
              "properties": {
                "latency": {"description": "From each request's intended start (what latency_ms summarises).", "type": "string", "contentEncoding": "base64"},
                "service": {"description": "Service time: the final attempt's transfer.", "type": "string", "contentEncoding": "base64"}
              },
              "additionalProperties": false
            },
            "series": {
              "description": "The time series, one point per interval (the lines of --series).",
              "type": "array",
              "items": \(Self.seriesPoint)
            }
          },
          "additionalProperties": false
        }

        """

    private static let benchSeriesLine = """
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "urn:batchfetch:schema:bench-series",
          "title": "batchfetch bench series line",
          "description": "One line of `batchfetch bench --series` (NDJSON), and each item of the --json report's series: one interval of the run.",
          "allOf": [\(Self.seriesPoint)]
        }

        """

    private static let seriesPercentiles = """
        {
                "oneOf": [
                  {"type": "null"},
                  {
                    "type": "object",
                    "required": ["p50", "p90", "p99", "p99_9", "max"],
                    "properties": {"p50": {"type": "number"}, "p90": {"type": "number"}, "p99": {"type": "number"}, "p99_9": {"type": "number"}, "max": {"type": "number"}},
                    "additionalProperties": false
                  }
                ]
              }
        """

    private static let seriesPoint = """
        {
              "type": "object",
              "required": ["t_s", "interval_s", "time", "intended", "sent", "done", "in_flight", "ok", "bytes", "statuses", "errors", "requests_per_second", "megabytes_per_second", "latency_ms", "service_ms", "latency_hdr", "service_hdr"],
              "properties": {
                "t_s": {"description": "The interval's end, seconds since the run's start.", "type": "number", "minimum": 0},
                "interval_s": {"description": "The interval's length (the last may be shorter).", "type": "number", "minimum": 0},
                "time": {"description": "The interval's end, seconds since the Unix epoch.", "type": "number"},
                "intended": {"description": "Requests due in the interval (open loop: by the schedule; closed loop: as sent).", "type": "integer", "minimum": 0},
                "sent": {"description": "Requests handed to the engine in the interval.", "type": "integer", "minimum": 0},
                "done": {"description": "Results in the interval.", "type": "integer", "minimum": 0},
                "in_flight": {"description": "Sent and not done at the interval's end.", "type": "integer", "minimum": 0},
                "ok": {"type": "integer", "minimum": 0},
                "bytes": {"type": "integer", "minimum": 0},
                "statuses": {"type": "object", "propertyNames": {"pattern": "^[0-9]{3}$"}, "additionalProperties": {"type": "integer", "minimum": 0}},
                "errors": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                "requests_per_second": {"type": "number", "minimum": 0},
                "megabytes_per_second": {"type": "number", "minimum": 0},
                "latency_ms": \(Self.seriesPercentiles),
                "service_ms": \(Self.seriesPercentiles),
                "latency_hdr": {"description": "The interval's latency histogram (HdrHistogram compressed V2, base64, microseconds).", "type": "string", "contentEncoding": "base64"},
                "service_hdr": {"description": "The interval's service-time histogram, encoded alike.", "type": "string", "contentEncoding": "base64"}
              },
              "additionalProperties": false
            }
        """
}
