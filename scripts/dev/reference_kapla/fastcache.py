# Stand-in for the PyPI-only fastcache (reference KAPLA runs, run.sh here): functools.lru_cache
# has the same semantics.
import functools
def clru_cache(maxsize=128, typed=False, **_):
    return functools.lru_cache(maxsize=maxsize, typed=typed)
lru_cache = clru_cache
