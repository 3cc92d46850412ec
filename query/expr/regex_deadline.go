package expr

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Go's regexp cannot be cancelled: one MatchString over a long string
// runs to its end, about 1 to 100 ns per byte for ordinary patterns and
// tens of microseconds per byte for hostile ones such as (a{0,100}){9}b.
// So a match over a subject of LongRegexSubject bytes or more, under a
// context that can be done, reads its subject through a rune reader that
// looks at the context every regexCheckRunes runes and, once it is done,
// ends the input early: the engine then stops within a step, and the
// result it found on the cut input is thrown away for the context's
// error. Nothing runs on after the call returns: no goroutine is
// abandoned.
//
// The reader path gives the same answers as the string path (a test
// holds them equal on random subjects, a fuzz target on any pattern). On
// a 64 KiB subject (BenchmarkRegexPaths) it costs about 1.3 to 1.7 times
// the string path for patterns without a literal prefix, and a find-all
// of 16,000 matches about 1.6 times; a pattern that is one literal is
// matched with strings.Contains, and a literal prefix is looked for with
// strings.Index before the engine starts (LiteralPrefix says "complete"
// for ^abc$ too, so the pattern's text decides), so the common "needle
// not there" case stays as fast as before. A literal prefix that occurs
// often while the whole pattern matches rarely is the worst case, about
// 4.5 times: past the first occurrence the engine reads the rest without
// Go's prefix skipping, which a reader does not have.

// LongRegexSubject is the subject length, in bytes, from which a match
// under a context that can be done is interruptible. Below it one match
// takes at most a few tens of milliseconds even for the costliest pattern
// MaxRegexProgram allows.
const LongRegexSubject = 1 << 10

// longSubject is LongRegexSubject, which tests lower to run every match
// through the reader path.
var longSubject = LongRegexSubject

// regexCheckRunes is how many runes the reader reads between two looks at
// the context: a costly pattern's step per rune is at most about 50 µs,
// so a done context is seen within about a millisecond.
const regexCheckRunes = 16

// deadlineReader reads s from pos as runes, and reports end of input once
// done is closed, recording that it cut the input.
type deadlineReader struct {
	s    string
	pos  int
	n    int
	done <-chan struct{}
	cut  bool
}

func (r *deadlineReader) ReadRune() (rune, int, error) {
	if r.n++; r.n%regexCheckRunes == 0 && !r.cut {
		select {
		case <-r.done:
			r.cut = true
		default:
		}
	}
	if r.cut || r.pos >= len(r.s) {
		return 0, 0, io.EOF
	}
	if c := r.s[r.pos]; c < utf8.RuneSelf {
		r.pos++
		return rune(c), 1, nil
	}
	c, w := utf8.DecodeRuneInString(r.s[r.pos:])
	r.pos += w
	return c, w, nil
}

// interruptible reports whether a match of s under ctx takes the reader
// path, and the channel that interrupts it.
func interruptible(ctx context.Context, s string) (<-chan struct{}, bool) {
	if ctx == nil || len(s) < longSubject {
		return nil, false
	}
	done := ctx.Done()
	return done, done != nil
}

// MatchRegex is re.MatchString(s) that gives up with ctx's error once ctx
// is done (see LongRegexSubject). A nil ctx is never done.
func MatchRegex(ctx context.Context, re *regexp.Regexp, s string) (bool, error) {
	done, ok := interruptible(ctx, s)
	if !ok {
		return re.MatchString(s), nil
	}
	if lit, _ := re.LiteralPrefix(); regexp.QuoteMeta(lit) == re.String() {
		return strings.Contains(s, lit), nil // re is that literal and nothing else
	}
	loc, err := (&finder{ctx: ctx, done: done, re: re, s: s}).from(0)
	return loc != nil, err
}

// findRegex is re.FindStringSubmatchIndex(s), interruptible as MatchRegex.
func findRegex(ctx context.Context, re *regexp.Regexp, s string) ([]int, error) {
	done, ok := interruptible(ctx, s)
	if !ok {
		return re.FindStringSubmatchIndex(s), nil
	}
	return (&finder{ctx: ctx, done: done, re: re, s: s}).from(0)
}

// findAllRegex is re.FindAllStringSubmatchIndex(s, -1), interruptible as
// MatchRegex. As Go's regexp does, it looks for each next match where the
// last one ended (one rune further after an empty match) and skips an
// empty match that abuts the one before it.
func findAllRegex(ctx context.Context, re *regexp.Regexp, s string) ([][]int, error) {
	done, ok := interruptible(ctx, s)
	if !ok {
		return re.FindAllStringSubmatchIndex(s, -1), nil
	}
	var out [][]int
	prevEnd := -1
	f := &finder{ctx: ctx, done: done, re: re, s: s}
	for pos := 0; pos <= len(s); {
		loc, err := f.from(pos)
		if err != nil || loc == nil {
			return out, err
		}
		accept := true
		if loc[1] == loc[0] {
			accept = loc[0] != prevEnd
			_, w := utf8.DecodeRuneInString(s[loc[1]:])
			pos = loc[1] + max(w, 1)
		} else {
			pos = loc[1]
		}
		prevEnd = loc[1]
		if accept {
			out = append(out, loc)
		}
	}
	return out, nil
}

// finder finds matches of re in s through a deadlineReader that done
// interrupts.
type finder struct {
	ctx  context.Context
	done <-chan struct{}
	re   *regexp.Regexp
	rre  *regexp.Regexp // resume(re), compiled once, when first needed
	s    string
}

// from is the leftmost match of re in s that starts at pos or after, with
// its groups' byte offsets in s. It skips to the first place re's literal
// prefix occurs. A match that starts after the beginning of s is found
// with resume(re) from the rune before it, so that ^, \b and the other
// assertions see the text before pos.
func (f *finder) from(pos int) ([]int, error) {
	s := f.s
	if lit, _ := f.re.LiteralPrefix(); lit != "" {
		i := strings.Index(s[pos:], lit)
		if i < 0 {
			return nil, nil
		}
		pos += i
	}
	if pos == 0 {
		r := &deadlineReader{s: s, done: f.done}
		loc := f.re.FindReaderSubmatchIndex(r)
		if r.cut {
			return nil, f.ctx.Err()
		}
		return loc, nil
	}
	if f.rre == nil {
		rre, err := resume(f.re)
		if err != nil {
			return nil, err
		}
		f.rre = rre
	}
	_, w := utf8.DecodeLastRuneInString(s[:pos])
	from := pos - w
	r := &deadlineReader{s: s, pos: from, done: f.done}
	loc := f.rre.FindReaderSubmatchIndex(r)
	if r.cut {
		return nil, f.ctx.Err()
	}
	if loc == nil {
		return nil, nil
	}
	loc = loc[2:] // group 1 is re's whole match
	for i := range loc {
		if loc[i] >= 0 {
			loc[i] += from
		}
	}
	return loc, nil
}

// resume compiles \A(?s:.)(?s:.*?)(re): matched from the rune before a
// position, its group 1 is re's leftmost match at that position or after
// it, found with the same preferences as re's own unanchored search. The
// last resumeCacheSize compilations are kept, keyed by re: a filter or an
// expression compiles its pattern once and matches it against every
// document, and compiling the resumed form costs more than matching a few
// KiB.
func resume(re *regexp.Regexp) (*regexp.Regexp, error) {
	resumeCache.Lock()
	rre, ok := resumeCache.m[re]
	resumeCache.Unlock()
	if ok {
		return rre, nil
	}
	rre, err := regexp.Compile(`\A(?s:.)(?s:.*?)(` + re.String() + `)`)
	if err != nil {
		return nil, err
	}
	resumeCache.Lock()
	if len(resumeCache.m) >= resumeCacheSize {
		clear(resumeCache.m) // patterns built per document would grow it without end
	}
	resumeCache.m[re] = rre
	resumeCache.Unlock()
	return rre, nil
}

// resumeCacheSize bounds resumeCache.
const resumeCacheSize = 64

var resumeCache = struct {
	sync.Mutex
	m map[*regexp.Regexp]*regexp.Regexp
}{m: map[*regexp.Regexp]*regexp.Regexp{}}
