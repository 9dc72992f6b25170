"""Run one command and report its wall time and peak RSS as JSON on a file descriptor.

Why a helper: Linux carries a process's peak-RSS mark across exec, so a child forked straight from the
(large) benchmark process would report the benchmark's own memory. Spawned from this small interpreter
(``python -I -S``), the floor of the figure is this helper's own size (about 10 MB), which the results
record as ``rss_floor_mb``. stdin/stdout/stderr are inherited.

Usage: ``python -I -S bench/spawn.py FD CMD [ARG ...]`` (FD: an inherited descriptor open for writing).
"""

import json
import os
import sys
import time


def main() -> None:
    fd, argv = int(sys.argv[1]), sys.argv[2:]
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ))
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    os.write(fd, json.dumps({"wall_s": wall, "max_rss_kb": usage.ru_maxrss, "returncode": code}).encode())


if __name__ == "__main__":
    main()
