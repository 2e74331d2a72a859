"""Pure pandas analytics: frames in, frames or dataclasses out.

No Streamlit and no `api_client` here (a test checks the imports): every rule is tested on
hand-built frames with known answers, and pages only lay out what these functions return.
"""
