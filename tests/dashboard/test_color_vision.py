"""The status colours stay apart for people with the common colour-vision deficiencies, and stay
readable on both themes (issue 15).

Each colour is simulated with the matrices of Machado, Oliveira and Fernandes (2009, "A
Physiologically-based Model for Simulation of Color Vision Deficiency", severity 1.0), applied
in linear RGB, then compared in CIELAB with CIEDE2000. Two colours at least `MIN_DELTA_E` apart
are told apart at a glance; around 2 is the smallest difference most people notice at all.
A symbol beside every status (`colors.STATUS_SYMBOLS`) is the second cue; this is the first.
"""

from __future__ import annotations

import itertools
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from dashboard.present.colors import (
    OUTCOME_COLORS,
    STATUS_COLORS,
    UNKNOWN_STATUS_COLOR,
)

MIN_DELTA_E = 10.0
"""The smallest CIEDE2000 difference allowed between two status colours, in every vision."""
MIN_CONTRAST = 3.0
"""WCAG 2.1's minimum for graphical objects (1.4.11), against each theme's background."""

MACHADO_2009 = {
    "normal vision": np.eye(3),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "tritanopia": np.array(
        [
            [1.255528, -0.076749, -0.178779],
            [-0.078411, 0.930809, 0.147602],
            [0.004733, 0.691367, 0.303900],
        ]
    ),
}
SRGB_TO_XYZ = np.array(
    [
        [0.4124564, 0.3575761, 0.1804375],
        [0.2126729, 0.7151522, 0.0721750],
        [0.0193339, 0.1191920, 0.9503041],
    ]
)
D65 = np.array([0.95047, 1.0, 1.08883])
CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"

PALETTE = {**STATUS_COLORS, "(unknown)": UNKNOWN_STATUS_COLOR}


def linear_rgb(hex_color: str) -> np.ndarray:
    srgb = np.array([int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab(linear: np.ndarray) -> tuple[float, float, float]:
    xyz = SRGB_TO_XYZ @ np.clip(linear, 0.0, 1.0) / D65
    delta = 6 / 29
    f = np.where(xyz > delta**3, np.cbrt(xyz), xyz / (3 * delta**2) + 4 / 29)
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))


def ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 (Sharma, Wu and Dalal 2005), kL = kC = kH = 1."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_big_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dl / s_l) ** 2
        + (dc / s_c) ** 2
        + (d_big_h / s_h) ** 2
        + r_t * (dc / s_c) * (d_big_h / s_h)
    )


def seen(hex_color: str, vision: str) -> tuple[float, float, float]:
    return lab(MACHADO_2009[vision] @ linear_rgb(hex_color))


def test_ciede2000_matches_the_published_test_data() -> None:
    # Pairs 1, 7 and 17 of Sharma, Wu and Dalal's table (2005).
    assert ciede2000((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(
        2.0425, abs=1e-4
    )
    assert ciede2000((50.0, 0.0, 0.0), (50.0, -1.0, 2.0)) == pytest.approx(2.3669, abs=1e-4)
    assert ciede2000((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == pytest.approx(27.1492, abs=1e-4)


def test_the_simulation_merges_what_people_with_that_deficiency_confuse() -> None:
    # A control: pure red and green of equal lightness merge for deuteranopes, not for others.
    red, green = "#b35900", "#6b7a00"
    assert ciede2000(seen(red, "normal vision"), seen(green, "normal vision")) > 20
    assert ciede2000(seen(red, "deuteranopia"), seen(green, "deuteranopia")) < MIN_DELTA_E


@pytest.mark.parametrize("vision", list(MACHADO_2009))
def test_every_two_status_colours_stay_apart(vision: str) -> None:
    too_close = []
    for (name1, color1), (name2, color2) in itertools.combinations(PALETTE.items(), 2):
        difference = ciede2000(seen(color1, vision), seen(color2, vision))
        if difference < MIN_DELTA_E:
            too_close.append(f"{name1} {color1} / {name2} {color2}: {difference:.1f}")

    assert not too_close, f"under {vision}: {too_close}"


def test_the_outcome_colours_are_status_colours() -> None:
    assert set(OUTCOME_COLORS.values()) <= set(PALETTE.values())


def relative_luminance(hex_color: str) -> float:
    return float(SRGB_TO_XYZ[1] @ linear_rgb(hex_color))


def contrast(color1: str, color2: str) -> float:
    high, low = sorted((relative_luminance(color1), relative_luminance(color2)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_status_colour_reads_on_both_themes(theme: str) -> None:
    background = tomllib.loads(CONFIG.read_text())["theme"][theme]["backgroundColor"]

    faint = {
        name: round(contrast(color, background), 2)
        for name, color in PALETTE.items()
        if contrast(color, background) < MIN_CONTRAST
    }

    assert not faint, f"on the {theme} background {background}: {faint}"
