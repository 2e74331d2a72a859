"""The theme's colours reach WCAG 2.2 AA contrast in the light and the dark theme, as set in
.streamlit/config.toml and dashboard/present/colors.py.

axe-core checks every page's text in a real browser (tests/browser/test_every_page.py); it
cannot judge what a chart draws in SVG (marks, lines, their text), nor what Streamlit shows only
on interaction. These checks cover the colours behind those: text at 4.5:1, and marks (chart
lines, bars, the status colours) at 3:1 against the backgrounds they are drawn on (WCAG 1.4.3,
1.4.11). The contrast ratio is WCAG's, from tests/dashboard/test_color_vision.py.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from dashboard.present import colors, outcome_marks
from tests.dashboard.test_color_vision import CONFIG, MIN_CONTRAST, contrast

TEXT_CONTRAST = 4.5
"""WCAG 1.4.3 (AA): normal-size text against its background."""
CAPTION_OPACITY = 0.6
"""Streamlit draws captions and other secondary text in the text colour at this opacity."""
SELECTED_TINT = 0.1
"""A selected option (segmented control, pills) is the primary colour on its own 10 % tint."""

THEMES = tomllib.loads(CONFIG.read_text())["theme"]


def blend(color: str, under: str, opacity: float) -> str:
    """`color` at `opacity` over the opaque `under`, as the browser composes them."""
    top = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    bottom = [int(under[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(
        f"{round(opacity * t + (1 - opacity) * b):02x}" for t, b in zip(top, bottom, strict=True)
    )


def backgrounds(theme: str) -> dict[str, str]:
    """The page's background and the sidebar's and widgets' (secondary) one."""
    colours = THEMES[theme]
    return {
        "background": colours["backgroundColor"],
        "sidebar": colours["secondaryBackgroundColor"],
    }


def faint(pairs: dict[str, tuple[str, str]], minimum: float) -> dict[str, float]:
    return {
        name: round(contrast(fg, bg), 2)
        for name, (fg, bg) in pairs.items()
        if contrast(fg, bg) < minimum
    }


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_captions_and_code_read_on_every_background(theme: str) -> None:
    colours = THEMES[theme]
    pairs = {}
    for where, background in backgrounds(theme).items():
        text = colours["textColor"]
        pairs[f"text on {where}"] = (text, background)
        pairs[f"caption on {where}"] = (blend(text, background, CAPTION_OPACITY), background)
        pairs[f"code on {where}"] = (colours["codeTextColor"], background)

    assert not faint(pairs, TEXT_CONTRAST), f"{theme} theme"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_selected_option_and_the_accent_read(theme: str) -> None:
    colours = THEMES[theme]
    primary, background = colours["primaryColor"], colours["backgroundColor"]
    tint = blend(primary, background, SELECTED_TINT)

    assert contrast(primary, tint) >= TEXT_CONTRAST, f"{theme}: selected option's text"
    assert contrast(primary, background) >= MIN_CONTRAST, f"{theme}: accent marks and borders"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_mark_colour_stands_out_from_the_background(theme: str) -> None:
    background = THEMES[theme]["backgroundColor"]
    marks = {
        **{f"plan {i}": c for i, c in enumerate(colors.PLAN_PALETTE)},
        **{f"categorical {i}": c for i, c in enumerate(THEMES[theme]["chartCategoricalColors"])},
        "pass-rate line": colors.TREND_COLOR,
        **{f"change {b}": c for b, c in outcome_marks.BUCKET_COLORS.items()},
        **{f"outcome {o}": c for o, c in colors.OUTCOME_COLORS.items()},
    }

    too_faint = faint({name: (c, background) for name, c in marks.items()}, MIN_CONTRAST)

    assert not too_faint, f"on the {theme} background {background}"


def test_the_light_themes_chart_colours_are_the_plan_colours() -> None:
    assert tuple(THEMES["light"]["chartCategoricalColors"]) == colors.PLAN_PALETTE
    assert len(set(colors.PLAN_SYMBOLS)) == len(colors.PLAN_PALETTE)


PRIMARY_BUTTON = re.compile(r"""type\s*=\s*["']primary["']""")


def test_no_primary_button_as_its_white_text_does_not_read_on_the_dark_accent() -> None:
    """Streamlit draws a primary button's label white on the primary colour. On the dark theme's
    light accent that is below 4.5:1, and axe sees it only on the pages it opens with such a
    button showing (the sign-in door did; a mark's form in a popover would not be opened), so no
    page uses one: the buttons keep the theme's text colour."""
    assert contrast("#ffffff", THEMES["dark"]["primaryColor"]) < TEXT_CONTRAST
    dashboard = Path(colors.__file__).resolve().parents[1]
    using = [
        str(path.relative_to(dashboard))
        for path in sorted(dashboard.rglob("*.py"))
        if any(
            PRIMARY_BUTTON.search(line) and not line.lstrip().startswith("#")
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert using == []
