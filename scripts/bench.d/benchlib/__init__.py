"""scripts/bench as a package: batchfetch against the tools users would pick instead (see scripts/bench).

Modules, in the order a run uses them: settings (flags and defaults), bench (one run's state),
tools (install, build, what this batchfetch can do), dataset (the URL lists, warm-up; documents and
pages make W1's, W2's and W5's files, w6images W6's images and their check), w3files (W3's
documents, saved from the replica; w3crawl its paths and checks), nginx (the server), workloads (the
table of workloads, tools, command lines and checks), rounds (rotated rounds, W6's saved files),
measure and process (one timed run, one record), checks, w4 (HTTPS and HTTP/2; w4server its nginx,
w4summary its table), w7, w8, cache, memory, profile, report (context.json; summary the tables).
main ties them together.

Every workload and helper is a function of these modules, run in the bench's own process. Apart
from it run only the programs it measures or serves with: the tools, the C floors
(scripts/bench.d/*.c), the Python peer (scripts/bench.d/aiohttp_fetch.py), nginx and the replica.

Standard library only (Python 3.11).
"""
