"""The site's read pages and read API on top of the other wings: views, URLs, step windows
and marks, task pictures. No other wing imports it (tests/test_import_boundaries.py)."""
