"""Head-to-head play: two submissions (or a submission and a baseline anchor) play one
two-player game against each other, each seat asking its own model for its own moves."""
