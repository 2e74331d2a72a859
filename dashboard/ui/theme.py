"""The viewer's light or dark theme, the same on every page.

Streamlit keeps the theme a viewer picks (Settings > Theme) in the browser's localStorage under a
key named after the path the tab was first opened at (`stActiveTheme-/executions-v2`), and reads
it once, when a tab opens. A choice made on one page is therefore lost when a link opens another
page. `keep_theme` puts a small script on every page that makes the choice follow the viewer:
it notices a choice made under any page's key (the key's value differs from the one it last
saw there; a key it never saw holds Streamlit's default for a newly opened path, not a
choice), remembers it as the dashboard's, and when the key of the page just opened holds
another theme, writes the viewer's choice there and reloads once, so the page opens in it.
It only reads and writes those theme keys of this site's localStorage; nothing leaves the
browser.

A shared link can also carry a theme for whoever opens it: Streamlit's own
`?embed_options=dark_theme` (or `light_theme`), which the pages keep in their URL.

`chart_text` gives the text of every chart (axis labels and titles, legends, colour bars) the
theme's own text colour: Streamlit's chart theme draws axis text in a fixed mid-grey that reads
at under 4.5:1 on the light background. The colours themselves are in .streamlit/config.toml.
"""

from __future__ import annotations

import streamlit as st

SHARED_KEY = "qa-dashboard.theme"
"""localStorage key of the viewer's theme choice, whichever page it was made on."""
SEEN_PREFIX = "qa-dashboard.theme.seen:"
"""localStorage key prefix: the value last seen under each Streamlit theme key."""
RELOADED_KEY = "qa-dashboard.theme.reloaded"
"""sessionStorage key: the page this tab last reloaded to take the theme (at most once)."""

_SCRIPT = f"""
<script>
(() => {{
  const store = window.localStorage;
  const streamlitKey = /^stActiveTheme-.*-v2$/;
  // Streamlit names its key after the path this tab was first loaded at.
  const entry = performance.getEntriesByType("navigation")[0];
  const firstPath = new URL(entry ? entry.name : window.location.href).pathname;
  const ownKey = `stActiveTheme-${{firstPath}}-v2`;
  // A key whose value changed since this script last saw it holds a theme the viewer picked
  // there. A key never seen before holds Streamlit's default, written when a tab first opens
  // that path: not a choice.
  let chosen = store.getItem("{SHARED_KEY}");
  const keys = [];
  for (let i = 0; i < store.length; i++) {{
    if (streamlitKey.test(store.key(i))) keys.push(store.key(i));
  }}
  for (const key of keys) {{
    const seen = store.getItem("{SEEN_PREFIX}" + key);
    if (seen !== null && store.getItem(key) !== seen) chosen = store.getItem(key);
  }}
  for (const key of keys) store.setItem("{SEEN_PREFIX}" + key, store.getItem(key));
  if (chosen === null) return;
  store.setItem("{SHARED_KEY}", chosen);
  const own = store.getItem(ownKey);
  if (own === chosen) return;
  store.setItem(ownKey, chosen);
  store.setItem("{SEEN_PREFIX}" + ownKey, chosen);
  if (window.sessionStorage.getItem("{RELOADED_KEY}") === firstPath) return;
  window.sessionStorage.setItem("{RELOADED_KEY}", firstPath);
  window.location.reload();
}})();
</script>
"""


# The chart text inherits the page's text colour (currentColor), so it follows whichever theme
# is shown; plotly writes its fill as an inline style, hence !important.
_CHART_TEXT = """
<style>
.stPlotlyChart :is(.xtick, .ytick, .g-xtitle, .g-ytitle, .legendtitletext, .cbaxis) text,
.stPlotlyChart :is(text.legendtext, .cbtitle text) { fill: currentColor !important; }
</style>
"""


def chart_text() -> None:
    """Chart text in the theme's text colour (see the module's doc); once per run."""
    st.html(_CHART_TEXT)


def keep_theme() -> None:
    """Make the viewer's theme choice hold on every page (see the module's doc); once per run."""
    st.html(_SCRIPT, unsafe_allow_javascript=True)
