"""How balance writes a number, in one place: terminal lines, check and tune answers, JUnit, the
report's cells and sentences all format through these (issue 27: one number-and-percent
formatter instead of seven).

A value that is not finite is written as a word (``nan``, ``inf``, ``-inf``), never as a digit
string that looks measured. Percentages have a space before ``%`` (``12.5 %``); a difference of
shares is in percentage points, never ``%``.

A value with an interval (``share_pm``, ``points``, ``signed``, ``estimate``) shows one
significant digit of the interval's half-width (``digits``), so a number is never written more
precisely than it is known; a signed change is written with a true minus sign (``−2.0 points``).
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


def grouped(x: float | None, decimals: int = 0, *, none: str = "-") -> str:
    """A count or a rate with thousands separators: ``12,345``, ``1,234.57``; ``none`` for no
    value."""
    if x is None:
        return none
    x = float(x)
    return f"{x:,.{decimals}f}" if math.isfinite(x) else _word(x)


def fair_pct(x: float) -> str:
    """A fair share: ``25 %``, ``33.3 %``."""
    return f"{float(x) * 100:.3g} %"


def digits(half: float, *, none: int = 1) -> int:
    """Decimals that show one significant digit of an interval's half-width (1..3); ``none``
    for an interval without a width."""
    if not finite(half) or half <= 0:
        return none
    return int(min(3, max(1, math.ceil(-math.log10(half)))))


def pct_digits(half: float) -> int:
    """Decimals of a percentage whose interval is ± ``half`` (a fraction)."""
    return digits(abs(half) * 100) if finite(half) else 1


def share_pm(share: float, lo: float, hi: float) -> str:
    """``28.1 % ± 0.2 %`` (half the width of the interval)."""
    half = (hi - lo) / 2
    d = pct_digits(half)
    return f"{share * 100:.{d}f} % ± {half * 100:.{d}f} %"


def _with_interval(
    d: float, lo: float, hi: float, k: int, scale: float, unit: str, sign: str = "+"
) -> str:
    x, a, b = (f"{v * scale:{sign}.{k}f}" for v in (d, lo, hi))
    return f"{x}{unit} [{a}, {b}]".replace("-", "−")


def points(d: float, lo: float | None = None, hi: float | None = None) -> str:
    """``+3.0 points`` or ``+3.0 points [+2.9, +3.1]`` for a difference of shares."""
    if not finite(d):
        return "n/a"
    if lo is None or hi is None:
        return f"{d * 100:+.1f} points".replace("-", "−")
    return _with_interval(d, lo, hi, pct_digits((hi - lo) / 2), 100, " points")


def signed(d: float, lo: float, hi: float, scale: float = 1.0, unit: str = "") -> str:
    """``+2.00 [+1.98, +2.02]``: a change and its interval (two decimals when it has no
    width); ``scale`` multiplies first, ``unit`` follows the change."""
    return _with_interval(d, lo, hi, digits((hi - lo) * scale / 2, none=2), scale, unit)


def estimate(x: float, lo: float, hi: float, scale: float = 1.0, unit: str = "") -> str:
    """``2.31 turns [2.20, 2.42]``: a value and its interval, unsigned, as ``signed`` writes
    a change."""
    return _with_interval(x, lo, hi, digits((hi - lo) * scale / 2, none=2), scale, unit, "")


def p_text(p: float | None, name: str = "p") -> str:
    """``p = 0.012``, ``p < 0.001``; ``p < 1e-300`` for a p-value that underflowed to 0 (a
    double holds nothing smaller), never ``p = 0``."""
    if not finite(p):
        return "n/a"
    if p == 0:
        return f"{name} < 1e-300"
    return f"{name} < 0.001" if p < 0.001 else f"{name} = {p:.2g}"


def q_text(q: float | None) -> str:
    """A Benjamini-Hochberg q-value as ``p_text`` writes a p-value."""
    return p_text(q, "q")
