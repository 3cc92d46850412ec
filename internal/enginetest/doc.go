// Package enginetest is the conformance suite of package engine: one
// table of cases (fixture documents, a read, the exact result values)
// that every engine runs. It is what "the same behaviour" means for the
// store file and a MongoDB deployment.
//
// An engine's test calls Run with a function that loads the fixtures
// into a fresh store of that engine and returns its Reader, and with the
// cases the engine cannot run, each with the reason (declared
// negatively: by default every case runs). Such a case still runs: if it
// passes, the test fails, so that the list never hides a case that has
// started to work.
//
// Results are compared value by value and type by type (canonical
// Extended JSON, so int32 1, long 1 and double 1.0 differ), in order.
// Each case names the MongoDB jstests file or manual page it comes
// from.
//
// This is a test helper: only tests may import it.
package enginetest
