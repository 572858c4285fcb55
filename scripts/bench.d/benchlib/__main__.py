"""The bench's measure for W4's bash (w4_shim.sh), which calls it as the bash bench's measure:

    python3 -m benchlib measure CHECK WORKLOAD TOOL ROUND REQUESTS MEAN_BYTES -- COMMAND…

CHECK is "" or one of w4.sh's checks with its arguments ("w4_check_stats 2000 HTTP/2"). RUNS, LOGS
and RUN_LIMIT come from the environment. Exits 0 whatever the run did: the record says it.
"""
import os
import sys
from pathlib import Path

from . import w4
from .measure import Recorder, measure


def main(argv):
    if len(argv) < 8 or argv[0] != "measure" or argv[7] != "--":
        sys.exit(__doc__)
    check_line, workload, tool, round_number, requests, mean = argv[1:7]
    command = argv[8:]
    recorder = Recorder(Path(os.environ["RUNS"]), Path(os.environ["LOGS"]), int(os.environ["RUN_LIMIT"]))
    check = (lambda log: w4.check(check_line, log)) if check_line else None
    measure(recorder, workload, tool, int(round_number), int(requests), float(mean), command, check=check,
            wrk=(tool == "wrk"))


main(sys.argv[1:])
