"""Rankings and figures built from the selectors' rows: the overall board, its cells (one
path for every suite), the charts, the "≈" marks between neighbours and the tables'
columns."""
