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

func lockTemp(*os.File) {}

// tempAbandoned cannot tell a live temporary file from an abandoned one
// here, so it keeps them all.
func tempAbandoned(string) bool { return false }
