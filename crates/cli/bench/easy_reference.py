#!/usr/bin/env python3
"""A lean EASY backfilling simulator in pure Python: the reference `cosched simulate --policy
easy` is timed against (crates/cli/bench/README.md).

It reads a plain or gzip SWF trace and applies the rules `cosched simulate` documents:

- a record is a job when its submit time and run time are given (not -1) and the run time is
  not negative, and it has a size (requested processors, else allocated, > 0); its estimate is
  the requested time when > 0, else its run time; a repeated job number is an error;
- the machine is the header's MaxProcs (else MaxNodes), or --capacity;
- a job wider than the machine is rejected (never started); a job runs min(run time, estimate);
- at each instant: every completion, then every arrival in (submit, job number) order, then
  one scheduling pass; a job started for 0 s ends in a second round at that instant, followed
  by another pass;
- a pass (Lifka's EASY as Mu'alem and Feitelson define it): start the head while it fits; the
  head's shadow is the earliest predicted end (start + estimate) of the running jobs, in
  (predicted end, job number) order, at which the idle units reach its size, and extra is the
  units idle then (every job predicted to end at the shadow counted) less its size; then every
  later queued job starts iff it fits and (now + estimate <= shadow or size <= extra), taking
  its size from extra when it ends after the shadow.

It prints a summary (jobs, mean wait, makespan); --jobs FILE writes
`job_id,starting_time,finish_time` per started job, and --check FILE compares the schedule job
for job with a `cosched simulate --jobs-csv FILE` (or `--out`'s per-job CSV) of the same trace
(exit status 1 on a difference).
"""

import argparse
import gzip
import heapq
import sys


def read_swf(path):
    """The valid jobs as (submit, job, size, runtime, estimate), the header's machine, and the
    number of invalid records."""
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    f = gzip.open(path, "rb") if gz else open(path, "rb")
    jobs = []
    seen = set()
    invalid = 0
    max_procs = max_nodes = None
    header = True
    with f:
        for line in f:
            if line.startswith(b";"):
                if header:
                    key, _, value = line[1:].partition(b":")
                    key = key.strip()
                    if key == b"MaxProcs":
                        max_procs = int(value)
                    elif key == b"MaxNodes":
                        max_nodes = int(value)
                continue
            fields = line.split()
            if not fields:
                continue
            header = False
            job = int(fields[0])
            if job in seen:
                sys.exit(f"job {job} appears more than once")
            seen.add(job)
            submit = int(fields[1])
            run = int(fields[3])
            procs = int(fields[7])
            if procs <= 0:
                procs = int(fields[4])
            if submit == -1 or run < 0 or procs <= 0:
                invalid += 1
                continue
            estimate = int(fields[8])
            if estimate <= 0:
                estimate = run
            jobs.append((submit, job, procs, min(run, estimate), estimate))
    jobs.sort()
    return jobs, max_procs if max_procs is not None else max_nodes, invalid


def easy(jobs, capacity):
    """Runs EASY; returns {job: (start, end)} for the started jobs and the rejected count."""
    free = capacity
    queue = []  # (submit, job, size, runtime, estimate), in (submit, job) order
    ends = []  # heap of (end, job, size)
    running = {}  # job -> (predicted end, job, size)
    schedule = {}
    rejected = 0
    i, n = 0, len(jobs)
    while i < n or ends or queue:
        now = ends[0][0] if ends else None
        if i < n and (now is None or jobs[i][0] < now):
            now = jobs[i][0]
        while True:
            while ends and ends[0][0] == now:
                _, job, size = heapq.heappop(ends)
                del running[job]
                free += size
            while i < n and jobs[i][0] == now:
                if jobs[i][2] > capacity:
                    rejected += 1
                else:
                    queue.append(jobs[i])
                i += 1
            # The pass.
            started = 0
            while queue and queue[0][2] <= free:
                _, job, size, run, estimate = queue.pop(0)
                free -= size
                schedule[job] = (now, now + run)
                heapq.heappush(ends, (now + run, job, size))
                running[job] = (now + estimate, job, size)
                started += 1
            if queue and free > 0:
                need = queue[0][2]
                avail = free
                shadow = None
                for end, _, size in sorted(running.values()):
                    if shadow is not None and end > shadow:
                        break
                    avail += size
                    if shadow is None and avail >= need:
                        shadow = end
                extra = avail - need
                rest = [queue[0]]
                for q in queue[1:]:
                    _, job, size, run, estimate = q
                    if size <= free and (now + estimate <= shadow or size <= extra):
                        free -= size
                        if now + estimate > shadow:
                            extra -= size
                        schedule[job] = (now, now + run)
                        heapq.heappush(ends, (now + run, job, size))
                        running[job] = (now + estimate, job, size)
                        started += 1
                    else:
                        rest.append(q)
                queue = rest
            if not (started and ends and ends[0][0] == now):
                break
    return schedule, rejected


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--capacity", type=int)
    p.add_argument("--jobs", help="write job_id,starting_time,finish_time here")
    p.add_argument("--check", help="compare with this `cosched simulate --jobs-csv` output")
    a = p.parse_args()
    jobs, stated, invalid = read_swf(a.trace)
    capacity = a.capacity or stated
    if not capacity:
        sys.exit("no capacity: give --capacity")
    schedule, rejected = easy(jobs, capacity)
    submit = {job: s for s, job, _, _, _ in jobs}
    waits = [start - submit[job] for job, (start, _) in schedule.items()]
    first = min(submit.values())
    last = max(end for _, end in schedule.values())
    print(
        f"{len(jobs)} jobs ({invalid} invalid, {rejected} rejected) on {capacity} units: "
        f"mean wait {sum(waits) / len(waits):.1f} s, makespan {last - first} s"
    )
    if a.jobs:
        with open(a.jobs, "w") as out:
            out.write("job_id,starting_time,finish_time\n")
            for job in sorted(schedule):
                start, end = schedule[job]
                out.write(f"{job},{start},{end}\n")
    if a.check:
        sys.exit(check(schedule, a.check))


def check(schedule, path):
    """Compares `schedule` with cosched's per-job CSV; 0 when equal job for job."""
    import csv

    ours = {}
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        # `--jobs-csv` (job_id,submit,start,end,size) or Batsim's columns (`--out`).
        start, end = ("start", "end") if "start" in rows.fieldnames else ("starting_time", "finish_time")
        for row in rows:
            if row[start]:  # empty for a rejected job
                ours[int(row["job_id"])] = (int(float(row[start])), int(float(row[end])))
    differ = [j for j in schedule.keys() | ours.keys() if schedule.get(j) != ours.get(j)]
    for j in sorted(differ)[:10]:
        print(f"job {j}: here {schedule.get(j)}, cosched {ours.get(j)}", file=sys.stderr)
    print(f"{len(schedule)} jobs started here, {len(ours)} by cosched, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    main()
