package vector

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The search query syntax: bleve v2.6.1's query string, parsed here into
// the nodes below rather than by bleve's search/query package, which links
// bleve's search and geo packages (and json-iterator) into the binary and
// runs their initialisation on every command. The lexer is bleve's, state
// for state; the grammar (bleve's query_string.y) is
//
//	input  := part+
//	part   := ("+" | "-")? base ("^" boost)?
//	base   := STRING | STRING "~" fuzz | NUMBER | PHRASE
//	        | field ":" (STRING | STRING "~" fuzz | NUMBER | "-" NUMBER | PHRASE)
//	        | field ":" (">" | ">=" | "<" | "<=") ("-"? NUMBER | PHRASE)
//	field  := STRING | PHRASE
//
// TestParseSearch_EqualsBleve compares both parsers.

// searchNode is a node of a parsed search query.
type searchNode interface{ searchNode() }

// boolNode is a whole query: its clauses by prefix (+ must, none should,
// - must not).
type boolNode struct {
	must, should, mustNot []searchNode
}

// matchNode analyzes text and matches its words: any of them (all of them
// with and), each fuzzily within fuzziness edits when fuzziness > 0.
type matchNode struct {
	text, field string
	fuzziness   int
	and         bool
	boost       float64
}

// phraseNode matches the analyzed words of text at consecutive positions.
type phraseNode struct {
	text, field string
	boost       float64
}

// termNode matches one term as indexed.
type termNode struct {
	term, field string
	boost       float64
}

// fuzzyNode matches the terms within fuzziness edits of term.
type fuzzyNode struct {
	term, field string
	fuzziness   int
	boost       float64
}

// wildcardNode matches the terms matching a pattern with * and ?.
type wildcardNode struct {
	pattern, field string
	boost          float64
}

// regexpNode matches the terms matching a regular expression (RE2).
type regexpNode struct {
	pattern, field string
	boost          float64
}

// disjunctionNode matches documents any clause matches: a number, which
// bleve searches as a word or as a numeric value.
type disjunctionNode struct {
	clauses []searchNode
	boost   float64
}

// rangeNode is a numeric or date range, which search queries refuse (it
// belongs in --filter).
type rangeNode struct {
	field string
	date  bool
	boost float64
}

// noneNode matches nothing: the empty query.
type noneNode struct{}

func (*boolNode) searchNode()        {}
func (*matchNode) searchNode()       {}
func (*phraseNode) searchNode()      {}
func (*termNode) searchNode()        {}
func (*fuzzyNode) searchNode()       {}
func (*wildcardNode) searchNode()    {}
func (*regexpNode) searchNode()      {}
func (*disjunctionNode) searchNode() {}
func (*rangeNode) searchNode()       {}
func (*noneNode) searchNode()        {}

// Tokens of the query string.
const (
	tEOF = iota
	tSTRING
	tPHRASE
	tNUMBER
	tPLUS
	tMINUS
	tCOLON
	tGREATER
	tLESS
	tEQUAL
	tBOOST
	tTILDE
)

type qsToken struct {
	kind int
	s    string
}

// qsParseError is an error of the parse; bleve reports these as
// "parse error: …" and grammar errors as "syntax error".
type qsParseError string

func (e qsParseError) Error() string { return string(e) }

// lexQueryString splits a query string into tokens as bleve's lexer.
func lexQueryString(text string) ([]qsToken, error) {
	var (
		toks     []qsToken
		buf      strings.Builder
		inEscape bool
		seenDot  bool
	)
	type state int
	const (
		start state = iota
		inPhrase
		singleCharOp
		inBoost
		inTilde
		inNumOrStr
		inStr
	)
	st := start
	emit := func(kind int) {
		toks = append(toks, qsToken{kind, buf.String()})
		buf.Reset()
		inEscape, seenDot = false, false
	}
	runes := []rune(text)
	for i := 0; ; {
		eof := i >= len(runes)
		var next rune
		if !eof {
			next = runes[i]
		}
		consumed := true
		switch st {
		case start:
			if eof {
				return toks, nil
			}
			if inEscape {
				inEscape = false
				buf.WriteString(unescapeQS(next))
				st = inStr
				break
			}
			switch next {
			case '"':
				st = inPhrase
			case '+', '-', ':', '>', '<', '=':
				buf.WriteRune(next)
				st = singleCharOp
			case '^':
				st = inBoost
			case '~':
				st = inTilde
			case '\\':
				inEscape = true
			default:
				switch {
				case unicode.IsDigit(next):
					buf.WriteRune(next)
					st = inNumOrStr
				case !unicode.IsSpace(next):
					buf.WriteRune(next)
					st = inStr
				default:
					buf.Reset()
					inEscape, seenDot = false, false
				}
			}
		case inPhrase:
			switch {
			case eof:
				return nil, qsParseError("unterminated quote")
			case !inEscape && next == '"':
				emit(tPHRASE)
				st = start
			case !inEscape && next == '\\':
				inEscape = true
			case inEscape:
				inEscape = false
				buf.WriteString(unescapeQS(next))
			default:
				buf.WriteRune(next)
			}
		case singleCharOp:
			kind := map[string]int{"+": tPLUS, "-": tMINUS, ":": tCOLON, ">": tGREATER, "<": tLESS, "=": tEQUAL}[buf.String()]
			emit(kind)
			st, consumed = start, false
		case inBoost, inTilde:
			switch {
			case eof || (!inEscape && next == ' '):
				if buf.Len() == 0 {
					buf.WriteString("1")
				}
				if st == inBoost {
					emit(tBOOST)
				} else {
					emit(tTILDE)
				}
				st = start
			case !inEscape && next == '\\':
				inEscape = true
			case inEscape:
				inEscape = false
				buf.WriteString(unescapeQS(next))
			default:
				buf.WriteRune(next)
			}
		case inNumOrStr, inStr:
			switch {
			case eof || (!inEscape && (next == ' ' || next == ':' || next == '^' || next == '~')):
				if st == inNumOrStr {
					emit(tNUMBER)
				} else {
					emit(tSTRING)
				}
				st = start
				consumed = eof || next == ' '
			case !inEscape && next == '\\':
				inEscape = true
			case inEscape:
				inEscape = false
				buf.WriteString(unescapeQS(next))
				st = inStr // an escape never makes a number
			case st == inStr:
				buf.WriteRune(next)
			case !seenDot && next == '.':
				seenDot = true
				buf.WriteRune(next)
			case unicode.IsDigit(next):
				buf.WriteRune(next)
			default:
				buf.WriteRune(next)
				st = inStr
			}
		}
		if consumed && !eof {
			i++
		}
	}
}

// unescapeQS is what an escaped rune stands for: itself when reserved,
// else the backslash and itself.
func unescapeQS(r rune) string {
	if strings.ContainsRune(`+-=&|><!(){}[]^"~*?:\/ `, r) {
		return string(r)
	}
	return `\` + string(r)
}

// parseQueryString parses a query in bleve's query-string syntax; the
// errors read as bleve's.
func parseQueryString(text string) (searchNode, error) {
	if text == "" {
		return &noneNode{}, nil
	}
	toks, err := lexQueryString(text)
	if err != nil {
		return nil, fmt.Errorf("parse error: %s", err)
	}
	p := &qsParser{toks: toks}
	q, err := p.parse()
	if pe, ok := err.(qsParseError); ok {
		return nil, fmt.Errorf("parse error: %s", string(pe))
	}
	return q, err
}

type qsParser struct {
	toks []qsToken
	i    int
}

var errSyntax = errors.New("syntax error")

func (p *qsParser) peek(k int) int {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k].kind
	}
	return tEOF
}

func (p *qsParser) next() qsToken {
	t := p.toks[p.i]
	p.i++
	return t
}

func (p *qsParser) parse() (searchNode, error) {
	q := &boolNode{}
	if len(p.toks) == 0 {
		return nil, errSyntax
	}
	for p.i < len(p.toks) {
		prefix := p.peek(0)
		if prefix == tPLUS || prefix == tMINUS {
			p.i++
		}
		n, err := p.base()
		if err != nil {
			return nil, err
		}
		if p.peek(0) == tBOOST {
			b, err := strconv.ParseFloat(p.next().s, 64)
			if err != nil {
				return nil, qsParseError(fmt.Sprintf("invalid boost value: %v", err))
			}
			setBoost(n, b)
		}
		switch prefix {
		case tPLUS:
			q.must = append(q.must, n)
		case tMINUS:
			q.mustNot = append(q.mustNot, n)
		default:
			q.should = append(q.should, n)
		}
	}
	return q, nil
}

// base parses one clause without its prefix and boost.
func (p *qsParser) base() (searchNode, error) {
	switch p.peek(0) {
	case tNUMBER:
		return numberNode("", p.next().s)
	case tSTRING, tPHRASE:
	default:
		return nil, errSyntax
	}
	if p.peek(1) != tCOLON {
		t := p.next()
		if t.kind == tPHRASE {
			return &phraseNode{text: t.s, boost: 1}, nil
		}
		if p.peek(0) == tTILDE {
			return fuzzyMatch("", t.s, p.next().s)
		}
		return stringNode("", t.s)
	}
	field := p.next().s
	p.i++ // the colon
	switch p.peek(0) {
	case tSTRING:
		s := p.next().s
		if p.peek(0) == tTILDE {
			return fuzzyMatch(field, s, p.next().s)
		}
		return stringNode(field, s)
	case tNUMBER:
		return numberNode(field, p.next().s)
	case tMINUS:
		if p.peek(1) != tNUMBER {
			return nil, errSyntax
		}
		p.i++
		return numberNode(field, "-"+p.next().s)
	case tPHRASE:
		return &phraseNode{text: p.next().s, field: field, boost: 1}, nil
	case tGREATER, tLESS:
		p.i++
		if p.peek(0) == tEQUAL {
			p.i++
		}
		switch p.peek(0) {
		case tPHRASE:
			// bleve parses the date first; refused either way, a range is
			// refused here with the hint to use --filter.
			p.i++
			return &rangeNode{field: field, date: true, boost: 1}, nil
		case tMINUS, tNUMBER:
			s := ""
			if p.peek(0) == tMINUS {
				if p.peek(1) != tNUMBER {
					return nil, errSyntax
				}
				p.i++
				s = "-"
			}
			if _, err := strconv.ParseFloat(s+p.next().s, 64); err != nil {
				return nil, qsParseError(fmt.Sprintf("error parsing number: %v", err))
			}
			return &rangeNode{field: field, boost: 1}, nil
		}
	}
	return nil, errSyntax
}

// stringNode is a word: a regular expression between slashes, a wildcard
// pattern with * or ?, else a match.
func stringNode(field, s string) (searchNode, error) {
	switch {
	case strings.HasPrefix(s, "/") && strings.HasSuffix(s, "/"):
		if len(s) < 2 {
			// bleve slices s[1:0] and reports the panic.
			return nil, qsParseError("runtime error: slice bounds out of range [1:0]")
		}
		return &regexpNode{pattern: s[1 : len(s)-1], field: field, boost: 1}, nil
	case strings.ContainsAny(s, "*?"):
		return &wildcardNode{pattern: s, field: field, boost: 1}, nil
	}
	return &matchNode{text: s, field: field, boost: 1}, nil
}

func fuzzyMatch(field, s, fuzz string) (searchNode, error) {
	f, err := strconv.ParseFloat(fuzz, 64)
	if err != nil {
		return nil, qsParseError(fmt.Sprintf("invalid fuzziness value: %v", err))
	}
	return &matchNode{text: s, field: field, fuzziness: int(f), boost: 1}, nil
}

// numberNode is a number: bleve matches it as a word or as a numeric value.
func numberNode(field, s string) (searchNode, error) {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return nil, qsParseError(fmt.Sprintf("error parsing number: %v", err))
	}
	return &disjunctionNode{clauses: []searchNode{
		&matchNode{text: s, field: field, boost: 1},
		&rangeNode{field: field, boost: 1},
	}, boost: 1}, nil
}

func setBoost(n searchNode, b float64) {
	switch n := n.(type) {
	case *matchNode:
		n.boost = b
	case *phraseNode:
		n.boost = b
	case *wildcardNode:
		n.boost = b
	case *regexpNode:
		n.boost = b
	case *disjunctionNode:
		n.boost = b
	case *rangeNode:
		n.boost = b
	}
}
