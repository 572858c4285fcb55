"""Rounds: every workload's tools over its list, in an order rotated by round; W6's saved files.

W6's files are deleted only when the bench exits, not between runs: on ext4 without a journal (this
machine's root file system), a freed inode is not reused for 60 s after its deletion, or 360 s while
its inode table block is dirty (which creating files next to it makes it), and every file created
meanwhile scans past the recent ones (recently_deleted() in fs/ext4/ialloc.c). A run started right
after the previous run's 20,000 files were deleted spent 3–10 times the system time creating its
files (a floor run: 0.6 s → 3 s): each tool would have been timed on its predecessor's deletion. So
the runs' files stay (~0.8 GB a run: ~10 GB for 3 rounds, 1.6 GB more with the memory runs), and a
bench started within W6_SETTLE s of the last one's deletion (same BENCH_DIR) waits for its end.
Deletions by other programs on the same file system still slow file creation for minutes: on a
shared machine W6's figures move more than the other workloads' (seen: the writing floor's run
0.8-4 s from one round to the next). As root (unless W6_FRESH_FS=0), each W6 run gets a new ext4,
made in an image file in the work folder (so on the same disk) and mounted over the run's folder:
every tool creates its files in the same empty inode tables (the writing floor: 0.82-0.85 s).
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .bench import say
from .measure import measure
from .workloads import WORKLOADS, is_b, tools_of


def run_rotated(round_number, steps):
    """STEPS in an order rotated by ROUND: round 1 as listed, round 2 from the second on, and so on,
    so each tool takes each place in turn. The machine drifts over the minute a round lasts, and a
    tool that always ran right after the heaviest one, or always last, would carry that bias into
    every per-round ratio."""
    return [steps[(i + round_number - 1) % len(steps)] for i in range(len(steps))]


def values(bench, workload, count, mean, list_name):
    """The values a workload's command templates and checks are filled in with."""
    s = bench.settings
    return {
        "batchfetch": bench.batchfetch, "floor": bench.floor, "write_floor": bench.write_floor, "ahc": bench.ahc,
        "list": str(bench.work / list_name), "n": count, "c": s.concurrency, "mean": mean,
        "secs": s.wrk_seconds.get(workload, 0), "threads": s.wrk_threads, "base": bench.base,
        "w3_base": bench.w3_base, "work": str(bench.work), "helpers": str(bench.helpers), "dir": "",
        "w6_docs": s.w6_docs,
    }


def run_tool(bench, workload, tool, round_number, run_values, folder=None, row=None):
    """One tool's run in one round: skipped (said in round 1) when it is not wanted or cannot run.
    FOLDER (W6) is made fresh and empty for the run's files; ROW names the run instead of tool.row."""
    if not bench.wants(tool.only):
        return
    if tool.needs is not None and not tool.needs(bench):
        if round_number == 1:
            say(f"{workload}: skipped {tool.missing}")
        return
    v = dict(run_values)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        if bench.settings.w6_fresh_fs and not fresh_fs(bench, folder, v["n"], v["mean"]):
            say("W6: could not make and mount a file system (no loop device?): measuring on the work folder's,"
                " with its waits after deletions")
            bench.settings.w6_fresh_fs = False
        v["dir"] = str(folder)
    if tool.head and tool.head < v["n"]:
        # A tool too slow for the whole list in a run's time limit gets its first HEAD lines, and
        # its rates are of those.
        # Written anew each run: the list's URLs name this run's nginx port.
        part = f"{v['list']}.head{tool.head}"
        with open(v["list"] + ".urls") as lines:
            Path(part + ".urls").write_text("".join(next(lines) for _ in range(tool.head)))
        v["list"] = part
        v["n"] = tool.head
    for template in tool.fresh:
        Path(template.format(**v)).unlink(missing_ok=True)
    measure(bench.recorder, workload, row or tool.row, round_number, v["n"], v["mean"], tool.argv(v),
            check=tool.check(v) if tool.check else None, wrk=tool.wrk)
    for template in tool.drop:
        Path(template.format(**v)).unlink(missing_ok=True)
    if folder is not None:
        # Flushed outside the timed part, so no run pays for another's writeback.
        sync(folder)
        if bench.settings.w6_fresh_fs:
            drop_fs(bench, folder)


def fresh_fs(bench, folder, count, mean):
    """A new ext4 mounted on FOLDER, in an image file in the work folder with room for COUNT files
    of MEAN bytes twice over (as root; see the module's notes). Returns whether it is mounted."""
    image = bench.work / "w6-fs.img"
    size = 2 * count * (int(mean) + 4096) + (256 << 20)
    with open(image, "wb") as f:
        f.truncate(size)
    made = subprocess.run(["mkfs.ext4", "-q", "-F", "-N", str(2 * count + 1024), str(image)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if not made or subprocess.run(["mount", "-o", "loop", str(image), str(folder)],
                                  stderr=subprocess.DEVNULL).returncode != 0:
        image.unlink(missing_ok=True)
        return False
    # The check wants nothing in the folder but the run's files.
    (folder / "lost+found").rmdir()
    return True


def drop_fs(bench, folder):
    """Unmounts FOLDER's file system and deletes its image."""
    subprocess.run(["umount", str(folder)], check=False)
    (bench.work / "w6-fs.img").unlink(missing_ok=True)


def run_workloads(bench):
    """Every round: W1, W2, W5, W6, W3 (those wanted and ready), each with its tools rotated."""
    s = bench.settings
    lists = {}
    for workload in WORKLOADS:
        name = workload.name
        if name == "W3":
            if bench.w3_ready:
                lists[name] = values(bench, name, bench.w3_requests, bench.w3_meta()["mean_bytes"], "w3")
        elif name == "W7":
            if bench.workload_wanted(name):
                lists[name] = values(bench, name, s.w7_count, bench.w7_mean, "w7")
        elif bench.workload_wanted(name):
            key = name.lower()
            lists[name] = values(bench, name, getattr(s, f"{key}_count"), bench.mean_bytes(key), key)
    for round_number in range(1, s.rounds + 1):
        for workload in WORKLOADS:
            if workload.name not in lists:
                continue
            if workload.saves_files:
                w6_settle(bench)
            for tool in run_rotated(round_number, tools_of(workload, bench)):
                name = f"{round_number}-{tool.only}" + ("-B" if is_b(tool) else "")
                folder = bench.w6_saved / name if workload.saves_files else None
                run_tool(bench, workload.name, tool, round_number, lists[workload.name], folder)


def sync(path):
    """sync -f: the file system holding PATH, written out."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.syncfs(fd)
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        os.sync()


def w6_delete(bench):
    """Deletes W6's saved files, untimed, and records when (also in the work folder, for the next run
    of the bench with the same BENCH_DIR); synced so that their inode table blocks are written."""
    if bench.w6_saved is None or not bench.w6_saved.is_dir():
        return
    for folder in bench.w6_saved.iterdir():
        if folder.is_mount():  # left mounted by an interrupted W6_FRESH_FS run
            drop_fs(bench, folder)
    shutil.rmtree(bench.w6_saved)
    sync(bench.work)
    bench.w6_deleted_at = int(time.time())
    (bench.work / "w6.deleted-at").write_text(f"{bench.w6_deleted_at}\n")


def w6_settle(bench):
    """Waits until no file deleted by w6_delete counts as recent (see above)."""
    left = bench.w6_deleted_at + bench.settings.w6_settle - int(time.time())
    if left > 0:
        at = time.strftime("%H:%M:%S", time.localtime(bench.w6_deleted_at))
        say(f"W6: waiting {left} s: the files deleted at {at} slow file creation until then (see rounds.py)")
        time.sleep(left)


def w6_check_space(bench):
    """Fails early when the work folder's disk cannot hold every W6 run's files, with room to spare."""
    s = bench.settings
    runs = s.rounds * len(tools_of(next(w for w in WORKLOADS if w.saves_files), bench)) + (2 if s.memory else 0)
    need = round(runs * s.w6_count * (bench.mean_bytes("w6") + 4096) / 1048576)
    stat = os.statvfs(bench.work)
    available = stat.f_bavail * stat.f_frsize // 1048576
    if available < need + 2048:
        say(f"W6 needs ~{need} MB in {bench.work} for its runs' files (kept until the end; see rounds.py), "
            f"{available} MB free")
        sys.exit(1)
