package mcpserver

import "time"

// ValidateSchema lets the end-to-end tests (package mcpserver_test) check
// values against schemas as the unit tests do.
var ValidateSchema = validateSchema

// SetProgressEvery sets how often a long call reports progress.
func SetProgressEvery(d time.Duration) { progressEvery = d }
