"""The site's read pages and read API: views, URLs, charts, step windows and marks, task pictures."""
