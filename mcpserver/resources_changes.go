package mcpserver

import (
	"context"
	"strings"

	"github.com/omgdb/omgdb/changes"
)

// changeResource recognises the change resources (the part of the URI
// after omgdb://): <store>/history, <store>/snapshots and
// <store>/plans/<token>. It returns the store path, still escaped, and
// the work of the read.
func changeResource(rest string) (string, func(context.Context, *call) (*output, error), bool) {
	if storePath, ok := strings.CutSuffix(rest, "/history"); ok && storePath != "" {
		return storePath, runHistory, true
	}
	if storePath, ok := strings.CutSuffix(rest, "/snapshots"); ok && storePath != "" {
		return storePath, runSnapshots, true
	}
	if i := strings.LastIndex(rest, "/plans/"); i > 0 {
		token := rest[i+len("/plans/"):]
		if token == "" || strings.Contains(token, "/") {
			return "", nil, false
		}
		return rest[:i], func(ctx context.Context, c *call) (*output, error) {
			c.args = c.args.With("token", jv(token))
			return runPlans(ctx, c)
		}, true
	}
	return "", nil, false
}

func runSnapshots(ctx context.Context, c *call) (*output, error) {
	db, err := c.openStore(false)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	snaps, err := changes.Snapshots(ctx, db)
	if err != nil {
		return nil, err
	}
	if snaps == nil {
		snaps = []changes.Snapshot{}
	}
	return c.resultOf(struct {
		Snapshots []changes.Snapshot `json:"snapshots"`
	}{snaps}, "")
}
