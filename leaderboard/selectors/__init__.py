"""Every ORM read of the read side: the pages, the API, the downloads and the suite
boards ask these functions, never the models (tests/test_import_boundaries.py)."""
