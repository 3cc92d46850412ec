//go:build !(linux && (amd64 || arm64))

package faults

import "errors"

// ErrUnsupported is returned where the faults cannot be injected.
var errUnsupported = errors.New("faults: not supported on this platform")

// LimitFileSize is not supported on this platform.
func LimitFileSize(int64) error { return errUnsupported }

// FailSyscalls is not supported on this platform.
func FailSyscalls([]Rule) error { return errUnsupported }

// Supported reports whether faults can be injected on this platform.
func Supported() bool { return false }
