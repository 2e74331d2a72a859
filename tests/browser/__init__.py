"""Real-browser end-to-end tests: `streamlit run` on a loopback port, driven by Playwright.

Run only these with `pytest -m browser` (or `make test-browser`). They need Debian's chromium
(`apt-get install chromium`); Playwright's own browser download is not used.
"""
