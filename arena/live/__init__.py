"""The live channel's sending end: the frame a viewer gets, publishing it after the commit, the signal between processes."""
