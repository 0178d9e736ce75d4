import pytest

import cosched


class SjfEasy:
    """Shortest requested time first, EASY backfilling in the same order: 20 lines."""

    def observe(self, now, view):
        free, starts = view.free_units, []
        queue = sorted(view.queue, key=lambda j: j[3])  # (id, submit, size, estimate)
        releases = list(view.releases)
        for i, (job, _, size, estimate) in enumerate(queue):
            if size > free:
                break
            starts.append(job)
            free -= size
            releases.append((now + estimate, size))
        else:
            return starts
        head, avail, shadow = queue[i][2], free, None
        for t, units in sorted(releases):
            if shadow is not None and t > shadow:
                break
            avail += units
            if shadow is None and avail >= head:
                shadow = t
        extra = avail - head
        for job, _, size, estimate in queue[i + 1:]:
            by_shadow = now + estimate <= shadow
            if size <= free and (by_shadow or size <= extra):
                starts.append(job)
                free -= size
                extra -= 0 if by_shadow else size
        return starts


def test_a_python_sjf_easy_is_the_builtin_job_for_job(sample):
    runs = cosched.simulate(sample, ["sjf+easy", SjfEasy()])
    ours, builtin = runs["SjfEasy"].jobs, runs["sjf+easy"].jobs
    cols = ["job_id", "starting_time", "finish_time", "allocated_resources"]
    assert ours[cols].equals(builtin[cols])
    assert runs["SjfEasy"].summary["mean_wait_s"] == runs["sjf+easy"].summary["mean_wait_s"]


def test_the_python_policy_runs_beside_generated_workloads():
    w = cosched.generate_lublin(4000, 128, seed=5, load=0.95)
    runs = cosched.simulate(w, [SjfEasy(), "sjf+easy"])
    assert runs["SjfEasy"].jobs.equals(runs["sjf+easy"].jobs)


class Raises:
    def observe(self, now, view):
        if now > 1000:
            raise ZeroDivisionError("policy bug at %d" % now)
        return []


def test_an_exception_in_the_policy_surfaces_with_its_traceback(sample):
    with pytest.raises(ZeroDivisionError, match="policy bug") as info:
        cosched.simulate(sample, Raises())
    assert any(entry.name == "observe" for entry in info.traceback)


class Unknown:
    def observe(self, now, view):
        return [10**12]


class TooBig:
    def observe(self, now, view):
        return [j[0] for j in view.queue]  # every waiting job, whether it fits or not


class Twice:
    def observe(self, now, view):
        return [view.queue[0][0]] * 2 if view.queue else []


def test_a_wrong_command_is_a_typed_error_naming_it(sample):
    with pytest.raises(cosched.CommandError, match="job 1000000000000, which is not waiting"):
        cosched.simulate(sample, Unknown())
    with pytest.raises(cosched.CommandError, match=r"start job \d+ on \d+ units, but only \d+ are idle"):
        cosched.simulate(sample, TooBig())
    with pytest.raises(cosched.CommandError, match="twice"):
        cosched.simulate(sample, Twice())


class Waker:
    """Starts nothing until its wake at t = 3600 s after the first call; then FCFS."""

    def __init__(self):
        self.at, self.woken, self.name = None, False, "waker"

    def start(self, now, view):
        self.at = now + 3600
        return []

    def observe(self, now, view):
        return self.wake(now, view) if self.woken else []

    def wake(self, now, view):
        self.woken, free, out = True, view.free_units, []
        for job, _, size, _ in view.queue:
            if size > free:
                break
            out.append(job)
            free -= size
        return out

    def next_wake(self):
        return None if self.woken else self.at


def test_start_wake_and_next_wake_are_called(sample):
    run = cosched.simulate(sample, Waker())
    first = run.jobs["submission_time"].min()
    assert run.jobs["starting_time"].min() >= first + 3600
    assert run.summary["jobs"] == len(sample)


def test_not_a_policy_is_a_type_error(sample):
    with pytest.raises(TypeError, match="observe"):
        cosched.simulate(sample, [object()])
