# Stand-in for the PyPI-only python-constraint's Problem (reference KAPLA runs, run.sh here):
# backtracking over the variables in the order they
# were added, checking each constraint once all its variables are assigned.
class Problem:
    def __init__(self):
        self._vars = []
        self._dom = {}
        self._cons = []
    def addVariables(self, names, domain):
        for n in names:
            self.addVariable(n, domain)
    def addVariable(self, name, domain):
        self._vars.append(name)
        self._dom[name] = list(domain)
    def addConstraint(self, func, variables):
        self._cons.append((func, tuple(variables)))
    def getSolutions(self):
        pos = {v: i for i, v in enumerate(self._vars)}
        ready = [[] for _ in self._vars]
        for f, vs in self._cons:
            last = max(pos[v] for v in vs) if vs else 0
            ready[last].append((f, vs))
        out, asg = [], {}
        def rec(i):
            if i == len(self._vars):
                out.append(dict(asg)); return
            v = self._vars[i]
            for x in self._dom[v]:
                asg[v] = x
                if all(f(*[asg[u] for u in vs]) for f, vs in ready[i]):
                    rec(i + 1)
            asg.pop(v, None)
        rec(0)
        return out
