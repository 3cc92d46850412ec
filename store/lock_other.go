//go:build !linux

package store

import (
	"os"
	"time"
)

// Without OFD locks there is no handoff signal: bbolt waits for the lock
// by itself and an import keeps the store until it ends.
const handoffSupported = false

func lockFile(*os.File, bool, bool, time.Time) error { return nil }

func waitersIn(*os.File) bool { return false }

func holdResume(string) *os.File { return nil }
