"""The rankings built from the selectors' rows: the overall board, its cells (one path
for every suite), the "≈" marks between neighbours and the tables' columns."""
