package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/query/value"
)

// writeDocDiff writes one document's change as readable text:
//
//	~ users 2
//	    tier: "std" -> "gold"
//	    + seen: true
//	    - old: 1
//	+ users 3
//	    {"_id":3,…}
//	- users 4
//	    {"_id":4,…}
func writeDocDiff(w io.Writer, coll string, id, before, after value.Value, fields []changes.FieldDiff) {
	switch {
	case before.IsMissing():
		fmt.Fprintf(w, "+ %s %s\n    %s\n", coll, id, after)
	case after.IsMissing():
		fmt.Fprintf(w, "- %s %s\n    %s\n", coll, id, before)
	default:
		fmt.Fprintf(w, "~ %s %s\n", coll, id)
		for _, f := range fields {
			switch f.Op {
			case changes.FieldAdded:
				fmt.Fprintf(w, "    + %s: %s\n", f.Path, f.After)
			case changes.FieldRemoved:
				fmt.Fprintf(w, "    - %s: %s\n", f.Path, f.Before)
			default:
				fmt.Fprintf(w, "    %s: %s -> %s\n", f.Path, f.Before, f.After)
			}
		}
		if len(fields) == 0 {
			fmt.Fprintf(w, "    (same fields, in another order)\n")
		}
	}
}

// planTitle describes a plan in one line.
func planTitle(p *changes.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "plan %s: %s", p.Token, p.Kind)
	switch {
	case p.Kind == changes.KindRevert && p.Revision != nil:
		fmt.Fprintf(&b, " to %s (lsn %d) across %s", p.Revision.Spec, p.Revision.LSN, strings.Join(p.Collections, ", "))
	default:
		fmt.Fprintf(&b, " %s", p.Collection)
		if p.Filter != nil {
			fmt.Fprintf(&b, " %s", p.Filter)
		}
		if p.Update != nil {
			fmt.Fprintf(&b, " %s", p.Update)
		}
	}
	fmt.Fprintf(&b, "; %d matched, %d to change; %s", p.Matched, p.Modified, p.Status)
	if p.Status == changes.StatusPending {
		fmt.Fprintf(&b, " until %s", p.Expires.Format("2006-01-02 15:04:05Z07:00"))
	}
	return b.String()
}
