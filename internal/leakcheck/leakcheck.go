package leakcheck

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// Supported reports whether the process can count its file descriptors
// (/proc/self/fd exists); tests skip without it.
func Supported() bool {
	_, err := os.ReadDir("/proc/self/fd")
	return err == nil
}

// Rounds runs round once to warm up what starts lazily (zstd's pools,
// timers), counts open file descriptors and goroutines, runs round n more
// times, waits briefly for goroutines that are ending, and reports any
// growth. round receives its number, 0 for the warm-up.
func Rounds(t testing.TB, n int, round func(i int)) {
	t.Helper()
	round(0)
	fds, goroutines := countFDs(t), runtime.NumGoroutine()
	for i := 1; i <= n; i++ {
		round(i)
	}
	time.Sleep(50 * time.Millisecond)
	if got := countFDs(t); got > fds {
		t.Errorf("open file descriptors: %d before %d rounds, %d after", fds, n, got)
	}
	if got := runtime.NumGoroutine(); got > goroutines {
		t.Errorf("goroutines: %d before %d rounds, %d after", goroutines, n, got)
	}
}

func countFDs(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
