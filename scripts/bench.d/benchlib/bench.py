"""One run's state: where things are, what was built and found, and what W3 and W6 are up to.

Filled in by main as the run goes (tools, datasets, servers); read by every workload.
"""
import dataclasses
import json
import sys
from pathlib import Path

from .measure import Recorder
from .settings import Settings


def say(message):
    """One line of progress on stderr, as every line of the bench's own starts."""
    print(f"bench: {message}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class Bench:
    settings: Settings
    root: Path  # the repository
    work: Path  # the work folder: dataset, lists, servers' files
    out: Path  # results
    work_is_temp: bool = False
    # Programs (tools.py): empty when not built or not wanted.
    batchfetch: str = ""
    batchfetch_given: bool = False
    replica: str = ""
    floor: str = ""
    write_floor: str = ""
    ahc: str = ""
    nginx: str = "/usr/sbin/nginx"
    # What this batchfetch can do, from its --help (tools.py).
    can: dict = dataclasses.field(default_factory=dict)
    # The servers (nginx.py): base URLs on 127.0.0.1.
    base: str = ""
    w3_base: str = ""
    # W3 (w3files.py): ready, or why not.
    w3_ready: bool = False
    w3_skip: str = ""
    w3_requests: int = 0
    # W6 (rounds.py): the folder every run's files go to, and when they were last deleted.
    w6_saved: Path = None
    w6_deleted_at: int = 0
    load_start: str = ""
    w7_mean: float = 0.0  # W7's mean request body, bytes (w7.py)

    @property
    def helpers(self):
        return self.root / "scripts" / "bench.d"

    @property
    def logs(self):
        return self.out / "logs"

    @property
    def runs(self):
        return self.out / "runs.jsonl"

    @property
    def recorder(self):
        return Recorder(self.runs, self.logs, self.settings.run_limit)

    def wants(self, tool):
        return self.settings.wants(tool)

    def workload_wanted(self, workload):
        return self.settings.workload_wanted(workload)

    def meta(self, workload):
        """A workload's entry in the dataset's meta.json (w1, w2, w5, w6)."""
        return json.loads((self.work / "meta.json").read_text())[workload]

    def mean_bytes(self, workload):
        return self.meta(workload)["mean_bytes"]

    def w3_meta(self):
        return json.loads((self.work / "w3" / "meta.json").read_text())
