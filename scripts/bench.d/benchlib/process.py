"""Running a child under a time limit and reading what it used: wall, user, sys, peak RSS.

The figures are GNU time's (`/usr/bin/time -f '%e %U %S %M'`), as they have always been: time is a
small process between the bench and the tool, and that matters for peak RSS. A process started
straight from Python (fork, vfork or posix_spawn alike) carries the interpreter's ~26 MB high-water
mark into its own ru_maxrss through exec, so wait4 would report no tool below 26 MB.

The child (time, and the tool under it) runs in a process group of its own: at the limit the whole
group gets SIGTERM, SIGKILL 5 s later, and the run's status is 124 (timeout(1)'s, which runs.jsonl
has always recorded for a run cut off). Ctrl-C, which reaches only the bench's group, is passed on.
"""
import dataclasses
import os
import signal
import subprocess
import tempfile
import threading

TIME = "/usr/bin/time"
TIMED_OUT = 124
KILL_AFTER = 5


@dataclasses.dataclass
class Usage:
    exit: int
    wall_s: float
    user_s: float
    sys_s: float
    max_rss_kb: int


def run_timed(command, limit, stdin=subprocess.DEVNULL, stdout=None, stderr=None, env=None, feed=None):
    """Runs COMMAND (a list) to its end or LIMIT seconds and returns its Usage.

    FEED, if given, is an iterable of bytes written to the child's stdin from a thread (stdin is
    then a pipe); a child that stops reading ends the feed quietly, as SIGPIPE ends a pipeline's writer.
    """
    fd, timefile = tempfile.mkstemp(prefix="bench-time.")
    os.close(fd)
    try:
        child = subprocess.Popen([TIME, "-f", "%e %U %S %M", "-o", timefile, *command],
                                 stdin=subprocess.PIPE if feed is not None else stdin, stdout=stdout,
                                 stderr=stderr, env=env, start_new_session=True)
    except OSError as error:
        os.unlink(timefile)
        if hasattr(stderr, "write"):
            stderr.write(f"bench: cannot run {TIME}: {error}\n".encode())
        return Usage(127, 0.0, 0.0, 0.0, 0)
    writer = None
    if feed is not None:
        writer = threading.Thread(target=_feed, args=(child.stdin, feed), daemon=True)
        writer.start()
    expired = False
    try:
        try:
            child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            expired = True
            _stop(child, signal.SIGTERM)
    except BaseException as error:
        # Ctrl-C (passed on as it is) or the bench's own SIGTERM: nothing of the run may outlive it.
        _stop(child, signal.SIGINT if isinstance(error, KeyboardInterrupt) else signal.SIGTERM)
        os.unlink(timefile)
        raise
    finally:
        if writer is not None:
            writer.join(timeout=KILL_AFTER)
    with open(timefile) as f:
        lines = f.read().splitlines()
    os.unlink(timefile)
    # With a failed command, time writes "Command exited with non-zero status N" before the figures.
    try:
        wall, user, system, rss = lines[-1].split()
        figures = float(wall), float(user), float(system), int(rss)
    except (IndexError, ValueError):
        figures = 0.0, 0.0, 0.0, 0
    code = child.returncode if child.returncode >= 0 else 128 - child.returncode
    return Usage(TIMED_OUT if expired else code, *figures)


def _stop(child, number):
    """Signals the run's group, and SIGKILLs it if it has not ended KILL_AFTER seconds later."""
    _signal_group(child, number)
    try:
        child.wait(timeout=KILL_AFTER)
    except subprocess.TimeoutExpired:
        _signal_group(child, signal.SIGKILL)
        child.wait()


def _signal_group(child, number):
    try:
        os.killpg(child.pid, number)
    except ProcessLookupError:
        pass


def _feed(pipe, chunks):
    try:
        for chunk in chunks:
            pipe.write(chunk)
        pipe.close()
    except (BrokenPipeError, ValueError, OSError):
        pass
