package spill

// SweepOnce exposes sweepOnce, which Linux's unnamed files leave unused.
var SweepOnce = sweepOnce
