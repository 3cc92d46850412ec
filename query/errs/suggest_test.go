package errs_test

import (
	"testing"

	"github.com/omgdb/omgdb/query/errs"
)

func TestDidYouMean(t *testing.T) {
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$set", "$sort", "$first"}
	cases := map[string]string{
		"$gtee":  " (did you mean `$gte`?)",
		"$sett":  " (did you mean `$set`?)",
		"$sortt": " (did you mean `$sort`?)",
		"$frist": " (did you mean `$first`?)",
		"$zzzzz": "",
	}
	for word, want := range cases {
		if got := errs.DidYouMean(word, ops); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", word, got, want)
		}
	}
}
