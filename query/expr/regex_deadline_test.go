package expr

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"regexp"
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
			checkPathsAgree(t, ctx, re, s, fmt.Sprintf("%q trial %d", p, trial))
		}
	}
}

// checkPathsAgree fails t unless MatchRegex, findRegex and findAllRegex
// under ctx give exactly what the string functions of Go's regexp give on s.
func checkPathsAgree(t *testing.T, ctx context.Context, re *regexp.Regexp, s, what string) {
	t.Helper()
	ok, err := MatchRegex(ctx, re, s)
	if err != nil || ok != re.MatchString(s) {
		t.Fatalf("%s: MatchRegex = %v, %v; MatchString = %v", what, ok, err, re.MatchString(s))
	}
	loc, err := findRegex(ctx, re, s)
	if want := re.FindStringSubmatchIndex(s); err != nil || !reflect.DeepEqual(loc, want) {
		t.Fatalf("%s: findRegex = %v, %v; want %v", what, loc, err, want)
	}
	all, err := findAllRegex(ctx, re, s)
	if want := re.FindAllStringSubmatchIndex(s, -1); err != nil || !reflect.DeepEqual(all, want) {
		t.Fatalf("%s: findAllRegex gave %d matches (err %v), FindAll %d; first difference at %d", what, len(all), err, len(want), firstDiff(all, want))
	}
}

// FuzzRegexReaderPath: for any pattern, flags and subject, the
// interruptible reader path (forced for short subjects too) gives what
// the string path gives.
func FuzzRegexReaderPath(f *testing.F) {
	for _, p := range equalityPatterns {
		f.Add(p, "", "ab abc\nba é1.b")
	}
	f.Add(`(?U)(a|ab)(c|bcd)(d*)`, "i", "ABCD abcd xabcdd")
	f.Add(`^Foo line\d$`, "m", "Foo line1\nFoo line2")
	f.Add(`()`, "", "bbbb")
	f.Add(`\b|x*`, "s", "a b\n\nc")
	f.Fuzz(func(t *testing.T, pattern, flags, s string) {
		if len(s) > 4096 {
			return
		}
		re, err := CompileRegex(pattern, flags)
		if err != nil {
			return
		}
		defer ReaderPathForTests()()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		checkPathsAgree(t, ctx, re, s, fmt.Sprintf("%q (%s) over %q", pattern, flags, s))
	})
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

// TestResume_Cached: the resumed form of a pattern is compiled once and
// reused, and patterns built per document do not grow the cache past
// resumeCacheSize.
func TestResume_Cached(t *testing.T) {
	re := regexp.MustCompile(`b+c`)
	a, err := resume(re)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := resume(re); b != a {
		t.Error("resume compiled the same pattern twice")
	}
	for i := range 3 * resumeCacheSize {
		if _, err := resume(regexp.MustCompile(fmt.Sprintf("x%d", i))); err != nil {
			t.Fatal(err)
		}
		resumeCache.Lock()
		n := len(resumeCache.m)
		resumeCache.Unlock()
		if n > resumeCacheSize {
			t.Fatalf("cache holds %d patterns, over %d", n, resumeCacheSize)
		}
	}
}

// BenchmarkRegexPaths compares the string path with the interruptible
// reader path on a 64 KiB subject: a match, and a find-all with 16,000
// matches.
func BenchmarkRegexPaths(b *testing.B) {
	s := strings.Repeat("xy ab ", 16<<10/6*4) + "abbbc"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, p := range []string{"ab+c", "(?i)ab+c", `[a-c]b+c`, `\bab`} {
		re := regexp.MustCompile(p)
		b.Run("match/string/"+p, func(b *testing.B) {
			for range b.N {
				re.MatchString(s)
			}
		})
		b.Run("match/reader/"+p, func(b *testing.B) {
			for range b.N {
				MatchRegex(ctx, re, s)
			}
		})
	}
	re := regexp.MustCompile(`a(b)`)
	b.Run("findall/string", func(b *testing.B) {
		for range b.N {
			re.FindAllStringSubmatchIndex(s, -1)
		}
	})
	b.Run("findall/reader", func(b *testing.B) {
		for range b.N {
			findAllRegex(ctx, re, s)
		}
	})
}
