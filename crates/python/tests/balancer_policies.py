"""Python policies of the Balancer's protocol for the tests and the docs."""


class StaticSplit:
    """The static baseline (a dedicated on-demand pool of ``pool`` nodes, the last ones, that
    never lends a node to batch; requests wait up to ``w_min`` for releases, oldest first),
    written in Python: what ``cosched_balancer::baseline::StaticSplit`` does."""

    def __init__(self, pool, w_min=0):
        self.pool, self.window = pool, 60 * w_min
        self.static_reserve = pool
        self.name = f"python split R={pool} W={w_min}"

    def start(self, now, view):
        n = len(view)
        self.free = list(range(n - self.pool, n))
        self.waiting = []  # (request, nodes, deadline)
        return [("reclaim", node) for node in self.free]

    def _grant(self, request, nodes):
        at = len(self.free) - nodes
        granted, self.free = self.free[at:], self.free[:at]
        return ("grant", request, granted)

    def observe(self, now, obs, view):
        kind = obs[0]
        if kind == "request":
            _, request, nodes, wait = obs
            window = self.window if wait is None else min(wait, self.window)
            if nodes <= len(self.free):
                return [self._grant(request, nodes)]
            if window > 0:
                self.waiting.append((request, nodes, now + window))
                return []
            return [("reject", request)]
        if kind == "cancel":
            self.waiting = [w for w in self.waiting if w[0] != obs[1]]
        elif kind == "release":
            self.free.extend(obs[1])
            out, still = [], []
            for request, nodes, deadline in self.waiting:
                if nodes <= len(self.free):
                    out.append(self._grant(request, nodes))
                else:
                    still.append((request, nodes, deadline))
            self.waiting = still
            return out
        return None

    def wake(self, now, view):
        out = [("reject", r) for r, _, deadline in self.waiting if deadline <= now]
        self.waiting = [w for w in self.waiting if w[2] > now]
        return out

    def next_wake(self):
        return min((w[2] for w in self.waiting), default=None)
