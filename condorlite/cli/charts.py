"""Line charts of figures over time: in the terminal (plotext) and to a file (matplotlib).

Libraries: ``plotext`` (pure Python, no dependencies) draws the terminal chart that
``history`` and ``userprio --recover`` print; ``matplotlib`` (the optional extra
``condorlite[plot]``, heavy: numpy, pillow) writes ``--plot FILE`` as PNG, SVG or PDF.
Both are imported only when a chart is drawn.

Determinism: the same series give the same text and, for SVG and PDF, the same bytes
(no creation date, a fixed hash salt for element ids). Labels are submitter names, so
they are made visible (control characters escaped) before any library sees them.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condorlite.cli.outfiles import OutFile, write_all
from condorlite.cli.render import visible, zone_name
from condorlite.errors import DomainError, UsageError

#: Markers that tell series apart without colour, in series order.
PLAIN_MARKERS = "•+x*o#@%&="
#: File formats ``write_plot`` knows, by suffix.
PLOT_FORMATS = (".png", ".svg", ".pdf")


@dataclass(frozen=True)
class Series:
    """One line: ``label`` and its points (``xs`` epoch seconds or seconds from now,
    ``ys`` the figure), in x order."""

    label: str
    xs: list[float]
    ys: list[float]


def _time_label(epoch: float, span: float) -> str:
    fmt = "%Y-%m-%d %H:%M" if span < 3 * 86400 else "%Y-%m-%d"
    return time.strftime(fmt, time.localtime(epoch))


def _ticks(series: list[Series], epochs: bool) -> tuple[list[float], list[str]]:
    lo = min(min(s.xs) for s in series)
    hi = max(max(s.xs) for s in series)
    span = hi - lo
    where = [lo] if span == 0 else [lo, lo + span / 2, hi]
    if epochs:
        return where, [_time_label(x, span) for x in where]
    return where, [_duration(x) for x in where]


def _duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.1f}d"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.1f}h"
    return f"{seconds / 60:.0f}m"


def wants_log(series: list[Series]) -> bool:
    """A logarithmic y axis when every value is positive and they span more than two
    decades (an EUP of a nice user, factor 1e10, beside users at 500)."""
    values = [y for s in series for y in s.ys]
    return bool(values) and min(values) > 0 and max(values) / min(values) > 100


def _decades(series: list[Series]) -> list[float]:
    values = [y for s in series for y in s.ys]
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    step = max(1, math.ceil((high - low) / 6))
    return [10.0 ** e for e in range(low, high + 1, step)]


def terminal_chart(series: list[Series], title: str, width: int, height: int,
                   color: bool, epochs: bool = True) -> str:
    """The chart as text, ``width`` x ``height`` characters. Without ``color`` it is
    plain characters (one marker per series, ``PLAIN_MARKERS``); with it, plotext's
    colours and braille dots. The y axis is logarithmic when ``wants_log``."""
    import plotext as plt

    plt.clear_figure()
    plt.plotsize(width, height)
    plt.theme("pro" if color else "clear")
    for i, line in enumerate(series):
        marker = "braille" if color else PLAIN_MARKERS[i % len(PLAIN_MARKERS)]
        plt.plot(line.xs, line.ys, label=visible(line.label), marker=marker)
    log = wants_log(series)
    if log:
        plt.yscale("log")
        decades = _decades(series)
        plt.yticks(decades, [f"{d:g}" for d in decades])
    zone = zone_name(max(max(s.xs) for s in series)) if series else ""
    notes = [n for n, on in ((zone, epochs), ("log scale", log)) if on]
    plt.title(visible(title) + (f" ({', '.join(notes)})" if notes else ""))
    where, labels = _ticks(series, epochs)
    plt.xticks(where, labels)
    text = plt.build()
    plt.clear_figure()
    return text if color else plt.uncolorize(text)


def plot_figure(series: list[Series], title: str, ylabel: str, epochs: bool = True) -> Any:
    """A matplotlib Figure of the series (tests read its lines back)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        raise DomainError(
            "--plot needs matplotlib, which condorlite installs only as an extra",
            hint="pip install 'condorlite[plot]'",
        ) from None
    import datetime as dt

    fig = Figure(figsize=(10, 5.5), layout="constrained")
    ax = fig.add_subplot()
    for line in series:
        xs: list[Any] = ([dt.datetime.fromtimestamp(x).astimezone() for x in line.xs]
                         if epochs else [x / 3600 for x in line.xs])
        ax.plot(xs, line.ys, label=visible(line.label), marker="." if len(xs) < 50 else None)
    ax.set_title(visible(title))
    ax.set_ylabel(ylabel)
    last = max((max(s.xs) for s in series), default=0.0)
    ax.set_xlabel(f"time ({zone_name(last)})" if epochs else "hours from now")
    ax.grid(True, alpha=0.3)
    if wants_log(series):
        ax.set_yscale("log")
    if series:
        ax.legend(loc="best", fontsize="small")
    return fig


def write_plot(series: list[Series], title: str, ylabel: str, path: Path,
               epochs: bool = True) -> None:
    """Write the chart to ``path`` (its suffix picks the format), all or nothing
    (``outfiles``)."""
    suffix = path.suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise UsageError(f"--plot {path}: the file name must end in "
                         f"{', '.join(PLOT_FORMATS)}")
    fig = plot_figure(series, title, ylabel, epochs)
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "condorlite"
    metadata: dict[str, Any] = {".png": {}, ".svg": {"Date": None},
                                ".pdf": {"CreationDate": None}}[suffix]
    write_all([OutFile(path, lambda out: fig.savefig(out, format=suffix[1:],
                                                     metadata=metadata))], f"--plot {path}")
