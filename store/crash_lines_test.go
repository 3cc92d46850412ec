package store_test

import (
	"fmt"
	"strconv"
	"strings"
)

// The crash workload's child reports on its standard output, a line per
// event (crash_workload_test.go): these functions read those lines back.

// parseCrashLines turns the child's lines into the acknowledged
// transactions, in order, and the one in flight at the kill, if any.
func parseCrashLines(lines []string) (acked []crashOp, pending *crashOp, err error) {
	var cur *crashOp
	var done int64 // documents of the current import acknowledged
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "begin":
			if cur, err = parseBegin(f[1:]); err != nil {
				return nil, nil, fmt.Errorf("bad line %q: %v", line, err)
			}
			done = 0
		case len(f) >= 2 && f[0] == "ack" && cur != nil && f[1] == strconv.FormatInt(cur.txn, 10):
			switch {
			case cur.kind == "import" && len(f) == 3:
				lines, err := strconv.ParseInt(f[2], 10, 64)
				if err != nil || lines < done {
					return nil, nil, fmt.Errorf("bad import ack %q", line)
				}
				if lines > done {
					b := *cur
					b.from, b.to, done = done, lines, lines
					acked = append(acked, b)
				}
			case cur.kind == "plan" && len(f) == 3:
				cur.token = f[2]
				acked, cur = append(acked, *cur), nil
			case cur.kind != "import" && cur.kind != "plan" && len(f) == 2:
				acked, cur = append(acked, *cur), nil
			default:
				return nil, nil, fmt.Errorf("bad ack %q", line)
			}
		default:
			return nil, nil, fmt.Errorf("unexpected line %q", line)
		}
	}
	if cur != nil {
		p := *cur
		if p.kind == "import" {
			if done == p.args[0] {
				return acked, nil, nil
			}
			p.from, p.to = done, min(done+p.args[1], p.args[0])
		}
		pending = &p
	}
	return acked, pending, nil
}

// parseBegin parses "<kind> <txn> <args…>".
func parseBegin(f []string) (*crashOp, error) {
	txn, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return nil, err
	}
	op := &crashOp{kind: f[0], txn: txn}
	rest := f[2:]
	switch op.kind {
	case "apply", "rollback":
		if len(rest) != 1 {
			return nil, fmt.Errorf("want a token")
		}
		op.token = rest[0]
		return op, nil
	case "plan":
		if len(rest) != 3 {
			return nil, fmt.Errorf("want a group, a size and u or d")
		}
		op.del, rest = rest[2] == "d", rest[:2]
	}
	for _, a := range rest {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, err
		}
		op.args = append(op.args, n)
	}
	want := map[string]int{"single": 0, "multi": 1, "import": 2, "load": 1, "update": 2, "delete": 2, "plan": 2, "compact": 0, "backup": 0, "sort": 0, "rename": 0, "update1": 2, "delete1": 2}
	if w, ok := want[op.kind]; !ok || w != len(op.args) {
		return nil, fmt.Errorf("unknown kind or wrong arguments")
	}
	return op, nil
}
