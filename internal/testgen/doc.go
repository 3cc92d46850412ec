// Package testgen generates random values and documents for property
// tests: every one of the ten types, with the edge cases that break codecs
// and comparisons (int64 extremes, 2^53+1, -0.0, NaN, every string escape).
package testgen
