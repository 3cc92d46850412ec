//go:build !linux

package spill

import "os"

// openUnnamed reports that this system cannot open a file without a name:
// the caller names it and removes the name at once.
func openUnnamed(dir string) (*os.File, bool, error) { return nil, false, nil }

// processGone cannot tell here: it keeps every file.
func processGone(pid int) bool { return false }
