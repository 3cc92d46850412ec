package leakcheck

import (
	"fmt"
	"os"
	"testing"
)

// recorder keeps the errors a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestRounds(t *testing.T) {
	if !Supported() {
		t.Skip("no /proc/self/fd")
	}
	clean := &recorder{TB: t}
	Rounds(clean, 5, func(int) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
	})
	if len(clean.errors) > 0 {
		t.Errorf("work that cleans up was reported: %v", clean.errors)
	}

	var files []*os.File
	stop := make(chan struct{})
	defer close(stop)
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	leaky := &recorder{TB: t}
	Rounds(leaky, 5, func(int) {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		go func() { <-stop }()
	})
	if len(leaky.errors) != 2 {
		t.Errorf("a leaking round: %d errors, want 2 (files and goroutines): %v", len(leaky.errors), leaky.errors)
	}
}
