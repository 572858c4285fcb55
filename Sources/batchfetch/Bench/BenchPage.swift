import Foundation

/// The page `bench report` writes: HTML, CSS and a small SVG charting script, all inline with
/// the data, so it opens from disk, mailed or archived, with no network. When the script has
/// drawn every chart it sets `data-status="ok"` on `<body>` and says so in `#status` (what the
/// headless-browser test reads), and `data-render-ms` to the milliseconds from the start of the
/// page's navigation to the end of drawing; on a script error, `data-status="error"` and the
/// message. Each chart's element carries `data-points` (points drawn) and the time charts
/// `data-stages` (stage boundaries drawn).
enum BenchPage {
    static func html(title: String, data: BenchPageData) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // The default encoder writes `/` as `\/`, so no `</script>` can end the data early.
        let json = (try? encoder.encode(data)).map { String(decoding: $0, as: UTF8.self) } ?? "{\"runs\":[]}"
        return Self.template.replacingOccurrences(of: "{{TITLE}}", with: Self.escaped(title))
            .replacingOccurrences(of: "{{DATA}}", with: json)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static let template = #"""
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>{{TITLE}}</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:960px;color:#222}
        h1{font-size:20px}h2{font-size:15px;margin:22px 0 4px}
        table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 9px;border-bottom:1px solid #ddd;text-align:right}
        th:first-child,td:first-child{text-align:left}.legend span{margin-right:14px}.sw{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
        .chart svg{background:#fff;border:1px solid #eee}#status,#notes{color:#888;font-size:12px}
        </style></head>
        <body data-status="loading"><h1>{{TITLE}}</h1>
        <div class="legend" id="legend"></div>
        <table id="summary"></table>
        <p id="notes"></p>
        <h2>Latency over time (ms): band p50–p99, dashed p99.9</h2><div class="chart" id="latency"></div>
        <h2>Percentile spectrum (ms), HdrHistogram's axis</h2><div class="chart" id="spectrum"></div>
        <h2>Throughput over time (requests/s)</h2><div class="chart" id="throughput"></div>
        <h2>Not ok over time (non-2xx responses and errors per second)</h2><div class="chart" id="statuses"></div>
        <p id="status">drawing…</p>
        <script type="application/json" id="data">{{DATA}}</script>
        <script>
        "use strict";
        window.addEventListener("error", function (event) {
          document.body.setAttribute("data-status", "error");
          document.getElementById("status").textContent = "error: " + event.message;
        });
        (function () {
          const data = JSON.parse(document.getElementById("data").textContent);
          const colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
          const NS = "http://www.w3.org/2000/svg";
          function el(name, attrs, parent) {
            const e = document.createElementNS(NS, name);
            for (const k in attrs) e.setAttribute(k, attrs[k]);
            if (parent) parent.appendChild(e);
            return e;
          }
          function text(parent, x, y, content, anchor) {
            const t = el("text", {x: x, y: y, "text-anchor": anchor || "middle", "font-size": 11, fill: "#333"}, parent);
            t.textContent = content;
          }
          function niceMax(v) {
            if (!(v > 0)) return 1;
            const p = Math.pow(10, Math.floor(Math.log10(v)));
            for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
            return 10 * p;
          }
          function fmt(v) {
            return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
          }
          function timeTicks(max) {
            const step = niceMax(max / 6), ticks = [];
            for (let v = 0; v <= max + 1e-9; v += step) ticks.push({v: v, label: fmt(v) + "s"});
            return ticks;
          }
          // spec: {xMin, xMax, yMax, xTicks: [{v, label}], lines: [{color, points: [[x, y]], dash, band: [[x, lo, hi]]}],
          //        marks: [{t, color}] (vertical lines: stage boundaries)}
          function chart(id, spec) {
            const W = 900, H = 300, L = 64, R = 40, T = 12, B = 30;
            const host = document.getElementById(id);
            const svg = el("svg", {viewBox: "0 0 " + W + " " + H, width: "100%", role: "img"}, host);
            const span = spec.xMax - spec.xMin || 1;
            const x = v => (L + (v - spec.xMin) / span * (W - L - R)).toFixed(1);
            const y = v => (H - B - Math.min(v, spec.yMax) / spec.yMax * (H - T - B)).toFixed(1);
            for (let i = 0; i <= 4; i++) {
              const v = spec.yMax * i / 4;
              el("line", {x1: L, y1: y(v), x2: W - R, y2: y(v), stroke: i ? "#e4e4e4" : "#333"}, svg);
              text(svg, L - 6, +y(v) + 4, fmt(v), "end");
            }
            el("line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#333"}, svg);
            for (const tick of spec.xTicks) {
              el("line", {x1: x(tick.v), y1: H - B, x2: x(tick.v), y2: H - B + 4, stroke: "#333"}, svg);
              text(svg, x(tick.v), H - B + 16, tick.label);
            }
            let drawn = 0;
            for (const line of spec.lines) {
              if (line.band && line.band.length > 0) {
                const upper = line.band.map(p => x(p[0]) + "," + y(p[2]));
                const lower = line.band.slice().reverse().map(p => x(p[0]) + "," + y(p[1]));
                el("polygon", {points: upper.concat(lower).join(" "), fill: line.color, "fill-opacity": 0.2}, svg);
                drawn += line.band.length;
              }
              if (line.points && line.points.length > 0) {
                const points = line.points.map(p => x(p[0]) + "," + y(p[1])).join(" ");
                el("polyline", {points: points, fill: "none", stroke: line.color, "stroke-width": 1.6,
                  "stroke-dasharray": line.dash || "none"}, svg);
                drawn += line.points.length;
              }
            }
            host.setAttribute("data-points", String(drawn));
            if (spec.marks) {
              let marks = 0;
              for (const mark of spec.marks) {
                if (!(mark.t >= spec.xMin && mark.t <= spec.xMax)) continue;
                el("line", {x1: x(mark.t), y1: T, x2: x(mark.t), y2: H - B, stroke: mark.color, "stroke-width": 1.2,
                  "stroke-dasharray": "2,3", "class": "stage"}, svg);
                marks += 1;
              }
              host.setAttribute("data-stages", String(marks));
            }
            return drawn;
          }
          const runs = data.runs;
          const legend = document.getElementById("legend");
          runs.forEach(function (run, i) {
            const item = document.createElement("span");
            const swatch = document.createElement("i");
            swatch.className = "sw";
            swatch.style.background = colors[i % colors.length];
            item.appendChild(swatch);
            item.appendChild(document.createTextNode(run.label));
            legend.appendChild(item);
          });
          const table = document.getElementById("summary");
          const head = ["run", "mode", "requests", "failed", "seconds", "req/s", "MB/s", "p50", "p90", "p99", "p99.9", "max"];
          table.insertRow().innerHTML = head.map(h => "<th>" + h + "</th>").join("");
          for (const run of runs) {
            const l = run.latency;
            const cells = [run.label, run.mode, run.requests, run.failed, run.seconds.toFixed(2), fmt(run.rps), fmt(run.mbps)]
              .concat(l ? [l.p50, l.p90, l.p99, l.p99_9, l.max].map(v => fmt(v) + " ms") : ["-", "-", "-", "-", "-"]);
            const row = table.insertRow();
            for (const cell of cells) row.insertCell().textContent = String(cell);
          }
          const tMax = Math.max(1e-3, ...runs.map(r => r.series.length ? r.series[r.series.length - 1][0] : 0));
          const answered = run => run.series.filter(row => row[3] >= 0);
          // A run's last interval ends with its last result and may last milliseconds: its rates
          // are noise, so rate charts leave out intervals shorter than half the run's longest.
          const whole = run => {
            const longest = Math.max(0, ...run.series.map(row => row[9]));
            return run.series.filter(row => row[9] >= longest / 2);
          };
          const color = i => colors[i % colors.length];
          const marks = runs.flatMap((run, i) => run.stages.map(t => ({t: t, color: color(i)})));
          const notes = [];
          if (marks.length > 0) notes.push("Dotted vertical lines: where one --stages stage ends and the next begins.");
          runs.filter(run => run.intervalsPerRow > 1).forEach(run => notes.push(run.label + ": each point stands for " +
            run.intervalsPerRow + " intervals (their rates over the group, the largest of their percentiles)."));
          document.getElementById("notes").textContent = notes.join(" ");
          const counts = [];
          counts.push(chart("latency", {
            xMin: 0, xMax: tMax, xTicks: timeTicks(tMax), marks: marks,
            yMax: niceMax(Math.max(...runs.flatMap(r => answered(r).map(row => row[6])), 0)),
            lines: runs.flatMap((run, i) => [
              {color: color(i), band: answered(run).map(row => [row[0], row[3], row[5]]),
               points: answered(run).map(row => [row[0], row[3]])},
              {color: color(i), dash: "5,3", points: answered(run).map(row => [row[0], row[6]])},
            ]),
          }));
          // HdrHistogram's percentile axis: x = log10(1 / (1 - p)), so 90 %, 99 %, 99.9 % are evenly spaced.
          const nines = p => -Math.log10(Math.max(1e-7, 1 - p / 100));
          const spectra = runs.map(run => run.spectrum.map(pair => [nines(pair[0]), pair[1]]));
          const xMax = Math.max(3, Math.ceil(Math.max(...spectra.flatMap(s => s.map(p => p[0])), 0)));
          const labels = ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%", "99.99999%"];
          counts.push(chart("spectrum", {
            xMin: 0, xMax: xMax, xTicks: labels.slice(0, xMax + 1).map((label, v) => ({v: v, label: label})),
            yMax: niceMax(Math.max(...runs.flatMap(r => r.spectrum.map(p => p[1])), 0)),
            lines: spectra.map((points, i) => ({color: color(i), points: points})),
          }));
          counts.push(chart("throughput", {
            xMin: 0, xMax: tMax, xTicks: timeTicks(tMax), marks: marks,
            yMax: niceMax(Math.max(...runs.flatMap(r => whole(r).map(row => row[1])), 0)),
            lines: runs.map((run, i) => ({color: color(i), points: whole(run).map(row => [row[0], row[1]])})),
          }));
          counts.push(chart("statuses", {
            xMin: 0, xMax: tMax, xTicks: timeTicks(tMax), marks: marks,
            yMax: niceMax(Math.max(1, ...runs.flatMap(r => whole(r).map(row => row[8])))),
            lines: runs.map((run, i) => ({color: color(i), points: whole(run).map(row => [row[0], row[8]])})),
          }));
          const empty = counts.filter(n => n === 0).length;
          document.body.setAttribute("data-status", empty === 0 ? "ok" : "empty");
          // Milliseconds from the start of navigation to every chart drawn: how long the page takes to open.
          document.body.setAttribute("data-render-ms", String(Math.round(performance.now())));
          document.getElementById("status").textContent =
            "rendered " + counts.length + " charts (" + counts.join(", ") + " points) for " + runs.length + " runs";
        })();
        </script>
        </body></html>

        """#
}
