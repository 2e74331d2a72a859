"""The floor under every dashboard layer: what the frames' columns are called and hold
(`schemas`), holding a frame to its schema (`shapes`), and reading single cells (`cells`).

Loaders (`dashboard.data`) produce these shapes, analytics consume and produce them, and
presentation reads them, so they live below all three and import none of them, only what frames
are made of (pandas, numpy, pyarrow; a test checks it).
"""
