"""scripts/bench as a package: batchfetch against the tools users would pick instead (see scripts/bench).

Modules, in the order a run uses them: settings (flags and defaults), bench (one run's state),
tools (install, build, what this batchfetch can do), dataset (documents, URL lists, warm-up),
w3files (W3's documents, saved from the replica), nginx (the server), workloads (the table of
workloads, tools, command lines and checks), rounds (rotated rounds, W6's saved files), measure
and process (one timed run, one record), checks, w4 (W4 through scripts/bench.d/w4.sh), cache,
memory, profile, report (context.json, the summary). main ties them together.

Standard library only (Python 3.11).
"""
