"""How the benchmark reports write a time: one place for both (report.py, workloads.py)."""


def fmt_ns(ns):
    """A time in nanoseconds, in the unit that keeps it readable; a dash when not measured."""
    if ns is None:
        return "—"
    if ns < 1e3:
        return f"{ns:.0f} ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3g} µs"
    if ns < 1e9:
        return f"{ns / 1e6:.3g} ms"
    return f"{ns / 1e9:.3g} s"
