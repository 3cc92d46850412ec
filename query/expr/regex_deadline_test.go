package expr

import (
	"context"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The patterns the interruptible path is held equal to the string path
// on: anchors, word boundaries, empty matches, case folding, multi-line
// mode, literal prefixes (one literal, a prefix, ^abc$), groups that do
// not take part, and non-ASCII runes.
var equalityPatterns = []string{
	"ab", "^ab", "ab$", "^ab$", `\bab\b`, `\Bb`, "a*", "x*", "(a)|(b)", "a(b)?c",
	"(?i)AB", "(?m)^ba", "(?m)b$", "(?s)a.b", "ab+c", "é+", "[^a]", "", "^", "$",
	"(a|ab)(c|bcd)(d*)", `\d+`, "b{2,3}", "ba|ab", "a.c", `a\.c`, "(?U)a+", "a??",
}

// TestRegexReader_EqualsString: on random subjects of at least
// LongRegexSubject bytes (so the reader path runs, under a context that is
// never done), MatchRegex, findRegex and findAllRegex give exactly what
// MatchString, FindStringSubmatchIndex and FindAllStringSubmatchIndex give.
func TestRegexReader_EqualsString(t *testing.T) {
	rnd := rand.New(rand.NewSource(19))
	alphabet := []string{"a", "b", "c", "d", " ", "\n", "é", ".", "1"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, p := range equalityPatterns {
		re, err := CompileRegex(p, "")
		if err != nil {
			t.Fatalf("compile %q: %v", p, err)
		}
		for trial := 0; trial < 6; trial++ {
			var b strings.Builder
			for b.Len() < LongRegexSubject+rnd.Intn(64) {
				b.WriteString(alphabet[rnd.Intn(len(alphabet)-trial%3)])
			}
			s := b.String()
			if trial == 0 {
				s = strings.Repeat("d", LongRegexSubject) // no a, b or c at all
			}
			ok, err := MatchRegex(ctx, re, s)
			if err != nil || ok != re.MatchString(s) {
				t.Fatalf("%q trial %d: MatchRegex = %v, %v; MatchString = %v", p, trial, ok, err, re.MatchString(s))
			}
			loc, err := findRegex(ctx, re, s)
			if want := re.FindStringSubmatchIndex(s); err != nil || !reflect.DeepEqual(loc, want) {
				t.Fatalf("%q trial %d: findRegex = %v, %v; want %v", p, trial, loc, err, want)
			}
			all, err := findAllRegex(ctx, re, s)
			if want := re.FindAllStringSubmatchIndex(s, -1); err != nil || !reflect.DeepEqual(all, want) {
				t.Fatalf("%q trial %d: findAllRegex gave %d matches (err %v), FindAll %d; first difference at %d", p, trial, len(all), err, len(want), firstDiff(all, want))
			}
		}
	}
}

func firstDiff(a, b [][]int) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestMatchRegex_StopsAtDeadline: a costly pattern over a 16 MiB string
// (minutes of work on the string path) returns the context's error once
// the deadline passes, for a match, a find and a find-all.
func TestMatchRegex_StopsAtDeadline(t *testing.T) {
	s := strings.Repeat("a", 16<<20)
	re, err := CompileRegex("(a{0,100}){9}b", "")
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func(ctx context.Context) error{
		"match":    func(ctx context.Context) error { _, err := MatchRegex(ctx, re, s); return err },
		"find":     func(ctx context.Context) error { _, err := findRegex(ctx, re, s); return err },
		"find-all": func(ctx context.Context) error { _, err := findAllRegex(ctx, re, s); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := run(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want the deadline's", name, err)
		}
	}
}

// TestCompileRegex_ProgramLimit: a pattern whose counted repetitions
// expand past MaxRegexProgram is refused with a limit error; the largest
// ordinary ones pass.
func TestCompileRegex_ProgramLimit(t *testing.T) {
	for _, p := range []string{"[a-z]{1000}", "(a{0,100}){9}b", "(?:ab){0,999}"} {
		if _, err := CompileRegex(p, ""); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, p := range []string{strings.Repeat("a{0,999}", 20), strings.Repeat("[ab]{999}", 11), "(?:abcdefghijk){1000}"} {
		_, err := CompileRegex(p, "")
		if err == nil || !strings.Contains(err.Error(), "repetitions are counted out") {
			t.Errorf("%q: err = %v, want the program limit", p, err)
		}
	}
}
