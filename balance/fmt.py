"""How balance writes a number, in one place: terminal lines, check and tune answers, JUnit, the
report's cells and sentences all format through these (issue 27: one number-and-percent
formatter instead of seven).

A value that is not finite is written as a word (``nan``, ``inf``, ``-inf``), never as a digit
string that looks measured. Percentages have a space before ``%`` (``12.5 %``); a difference of
shares is in percentage points, never ``%``.
"""

from __future__ import annotations

import math
from typing import Any


def finite(x: Any) -> bool:
    """Whether ``x`` is a real number that is not nan or infinite (None: False)."""
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def _word(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def num(x: float) -> str:
    """A value as written in a spec or config: shortest form, whole numbers without a point
    (``5``, ``0.25``, ``1e-06``)."""
    x = float(x)
    if not math.isfinite(x):
        return _word(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:g}"


def fixed(x: float) -> str:
    """A measured value: four decimals below 10, two from there (``0.2512``, ``12.31``)."""
    x = float(x)
    if not math.isfinite(x):
        return _word(x)
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.2f}"


def pct(x: float, decimals: int = 1) -> str:
    """A share as a percentage: ``12.5 %``; ``n/a`` for no value."""
    return "n/a" if not finite(x) else f"{float(x) * 100:.{decimals}f} %"


def level(x: float) -> str:
    """A confidence level or a rate set by the user, as few digits as it has: ``95 %``,
    ``99.9 %``, ``97.25 %``."""
    return f"{float(x) * 100:.4g} %"
