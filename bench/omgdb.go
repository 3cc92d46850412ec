package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/omgdb/omgdb/changes"
	"github.com/omgdb/omgdb/cli"
	"github.com/omgdb/omgdb/query"
	"github.com/omgdb/omgdb/query/agg"
	"github.com/omgdb/omgdb/query/value"
	"github.com/omgdb/omgdb/store"
)

// The filters of the workloads, as omgdb writes them.
var (
	scanFilter  = fmt.Sprintf(`{"address.city":%q,"score":{"$gte":%v}}`, scanCity, scanScore)
	rangeFilter = fmt.Sprintf(`{"age":{"$gte":%d,"$lte":%d}}`, rangeLo, rangeHi)
	groupStages = `[{"$group":{"_id":"$address.city","n":{"$sum":1},"avg":{"$avg":"$score"}}}]`
	updFilter   = fmt.Sprintf(`{"plan":%q}`, updatePlan)
	updSpec     = `{"$inc":{"score":1},"$set":{"flag":true}}`
)

func setupOmgdbLib(b *bench) (string, error) {
	return fmt.Sprintf("omgdb %s (%s), in this process", cli.Version, runtime.Version()), nil
}

// setupOmgdbCLI builds the omgdb binary once, from the module this program
// belongs to.
func setupOmgdbCLI(b *bench) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("cannot find the module to build omgdb from: run from the repository")
	}
	root := filepath.Dir(string(bytes.TrimSpace(out)))
	b.bin = filepath.Join(b.cfg.work, "omgdb")
	// As `make build` does: static, without the dynamic loader's start-up.
	for out, pkg := range map[string]string{b.bin: ".", b.floorBin("floor-go"): "./bench/floor/hello", b.floorBin("floor-deps"): "./bench/floor/deps", b.floorBin("floor-all"): "./bench/floor/all"} {
		build := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := build.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build %s: %v: %s", pkg, err, msg)
		}
	}
	v, err := exec.Command(b.bin, "version").Output()
	if err != nil {
		return "", err
	}
	b.canIndex = exec.Command(b.bin, "create-index", "--help").Run() == nil
	return strings.TrimSpace(string(v)) + ", built with CGO_ENABLED=0 go build -trimpath, whole processes", nil
}

// floorBin is where the start-up floor program of workload w (floor-go:
// bench/floor/hello, floor-deps: bench/floor/deps, floor-all:
// bench/floor/all) is built.
func (b *bench) floorBin(w string) string { return filepath.Join(b.cfg.work, w) }

// omgdbStore is the store the query workloads read: the one the CLI import
// left, or one imported now (untimed) when the import was not run.
func (b *bench) omgdbStore() (string, error) {
	path := b.path("omgdb") + ".omgdb"
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := b.omgdbImport(path); err != nil {
		return path, err
	}
	return path, b.omgdbIndexes(path)
}

// omgdbIndexes creates the indexes the peers have, with the CLI, when this
// omgdb has secondary indexes: both in one command, as a MongoDB user
// passes both to createIndexes, built in one scan.
func (b *bench) omgdbIndexes(path string) error {
	if !b.canIndex {
		return nil
	}
	return runCmd(nil, b.bin, "create-index", path, "users", "email", "age")
}

func (b *bench) omgdbImport(path string) error {
	os.Remove(path)
	db, err := store.Open(path, &store.Options{Create: true})
	if err != nil {
		return err
	}
	defer db.Close()
	f, err := os.Open(b.data)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := db.Import(context.Background(), "users", f, nil); err != nil {
		return err
	}
	return db.Close()
}

func (b *bench) omgdbLib(w string) result {
	switch w {
	case "import":
		path := b.path("omgdb-lib") + ".omgdb"
		defer os.Remove(path)
		r := b.timeRuns(func() error { return os.RemoveAll(path) }, func() error { return b.omgdbImport(path) })
		r.note = "DB.Import alone, without indexes"
		return r
	case "get":
		return b.withStore(func(db *store.DB) result { return b.libGets(db) })
	case "scan":
		f, err := query.CompileFilter(value.MustParse(scanFilter))
		if err != nil {
			return skipped("%v", err)
		}
		return b.withStore(func(db *store.DB) result { return b.libCount(db, f) })
	case "eq", "range":
		if !b.canIndex {
			return skipped("secondary indexes have not landed in main")
		}
		if w == "range" {
			f, err := query.CompileFilter(value.MustParse(rangeFilter))
			if err != nil {
				return skipped("%v", err)
			}
			return b.withStore(func(db *store.DB) result { return b.libCount(db, f) })
		}
		return b.withStore(func(db *store.DB) result { return b.libEq(db) })
	case "group":
		p, err := agg.CompilePipeline(value.MustParse(groupStages), nil)
		if err != nil {
			return skipped("%v", err)
		}
		return b.withStore(func(db *store.DB) result { return b.libAggregate(db, p) })
	case "update":
		return b.libUpdate()
	case "vector":
		return b.libVector()
	}
	return result{}
}

func (b *bench) withStore(fn func(*store.DB) result) result {
	path, err := b.omgdbStore()
	if err != nil {
		return skipped("import: %v", err)
	}
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		return skipped("open: %v", err)
	}
	defer db.Close()
	return fn(db)
}

func (b *bench) libGets(db *store.DB) result {
	r := b.timeRuns(nil, func() error {
		for _, id := range b.ids {
			err := db.View(func(tx *store.Tx) error {
				c, err := tx.Collection("users")
				if err != nil {
					return err
				}
				_, err = c.GetJSON(value.LongValue(int64(id)))
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	perOp(&r, len(b.ids))
	return r
}

// libEq finds each sample user by e-mail, decoding the document found.
func (b *bench) libEq(db *store.DB) result {
	filters := make([]*query.Filter, len(b.ids))
	for i, id := range b.ids {
		f, err := query.CompileFilter(value.ObjectValue([]value.Field{{Key: "email", Value: value.StringValue(emailOf(id))}}))
		if err != nil {
			return skipped("%v", err)
		}
		filters[i] = f
	}
	r := b.timeRuns(nil, func() error {
		for _, f := range filters {
			err := db.View(func(tx *store.Tx) error {
				c, err := tx.Collection("users")
				if err != nil {
					return err
				}
				src := c.Find(context.Background(), store.Query{Filter: f})
				defer src.Close()
				n := 0
				for ; src.Next(); n++ {
					src.Doc()
				}
				if n != 1 {
					return fmt.Errorf("found %d documents by e-mail, want 1", n)
				}
				return src.Err()
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	perOp(&r, len(b.ids))
	return r
}

func (b *bench) libCount(db *store.DB, f *query.Filter) result {
	var n int64
	r := b.timeRuns(nil, func() error {
		return db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("users")
			if err != nil {
				return err
			}
			n, err = c.CountMatching(context.Background(), f)
			return err
		})
	})
	if r.skip == "" {
		r.note = fmt.Sprintf("%d matches", n)
	}
	return r
}

func (b *bench) libAggregate(db *store.DB, p *agg.Pipeline) result {
	var n int
	r := b.timeRuns(nil, func() error {
		return db.View(func(tx *store.Tx) error {
			c, err := tx.Collection("users")
			if err != nil {
				return err
			}
			src := c.Aggregate(context.Background(), p, nil)
			defer src.Close()
			for n = 0; src.Next(); n++ {
			}
			return src.Err()
		})
	})
	if r.skip == "" {
		r.note = fmt.Sprintf("%d groups", n)
	}
	return r
}

// libUpdate plans and applies the update on a fresh copy of the store
// each run (the copy is not timed).
func (b *bench) libUpdate() result {
	src, err := b.omgdbStore()
	if err != nil {
		return skipped("import: %v", err)
	}
	tmp := b.path("omgdb-update") + ".omgdb"
	defer os.Remove(tmp)
	var n int64
	r := b.timeRuns(func() error { return copyFile(src, tmp) }, func() error {
		db, err := store.Open(tmp, nil)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx := context.Background()
		plan, err := changes.PlanUpdate(ctx, db, "users", value.MustParse(updFilter), value.MustParse(updSpec), &changes.PlanOptions{Sample: -1})
		if err != nil {
			return err
		}
		res, err := changes.Apply(ctx, db, plan.Token, nil)
		if err != nil {
			return err
		}
		n = res.Updated
		return db.Close()
	})
	if r.skip == "" {
		r.note = fmt.Sprintf("plan + apply, %d documents", n)
	}
	return r
}

func perOp(r *result, n int) {
	for i := range r.samples {
		r.samples[i] /= float64(n)
	}
	for i := range r.cpu {
		r.cpu[i] /= float64(n)
	}
}

func (b *bench) omgdbCLI(w string) result {
	st := b.path("omgdb") + ".omgdb"
	switch w {
	case "import":
		r := b.timeRuns(func() error { return os.RemoveAll(st) }, func() error {
			if err := runCmd(nil, b.bin, "import", st, "users", b.data); err != nil {
				return err
			}
			return b.omgdbIndexes(st)
		})
		r.note = "omgdb import, then one omgdb create-index for email and age"
		if !b.canIndex {
			r.note = "omgdb import; no indexes: secondary indexes have not landed in main"
		}
		return r
	case "cold":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		return b.processRuns(func(i int) []string {
			return []string{b.bin, "find", st, "users", fmt.Sprintf(`{"_id":%d}`, b.ids[i%len(b.ids)])}
		})
	case "version":
		return b.processRuns(func(int) []string { return []string{b.bin, "version"} })
	case "floor-go", "floor-deps", "floor-all":
		bin := b.floorBin(w)
		return b.processRuns(func(int) []string { return []string{bin} })
	case "rangefind":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		filter := fmt.Sprintf(`{"age":{"$gte":%d,"$lte":%d}}`, findLo, findHi)
		r := b.timeRuns(nil, func() error { return runCmd(nil, b.bin, "find", st, "users", filter) })
		r.note = "whole process, output read through a pipe"
		return r
	case "sortfind":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		return b.peakRuns(b.bin, "find", st, "users", "{}", "--sort", `{"score":-1}`)
	case "scan":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		r := b.timeRuns(nil, func() error { return runCmd(nil, b.bin, "count", st, "users", scanFilter) })
		r.note = "whole process"
		return r
	case "group":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		r := b.timeRuns(nil, func() error { return runCmd(nil, b.bin, "aggregate", st, "users", groupStages) })
		r.note = "whole process"
		return r
	case "update":
		if _, err := b.omgdbStore(); err != nil {
			return skipped("import: %v", err)
		}
		tmp := b.path("omgdb-cli-update") + ".omgdb"
		defer os.Remove(tmp)
		r := b.timeRuns(func() error { return copyFile(st, tmp) }, func() error {
			out, err := output(nil, b.bin, "plan-update", tmp, "users", updFilter, updSpec)
			if err != nil {
				return err
			}
			var plan struct{ Token string }
			if err := json.Unmarshal(out, &plan); err != nil || plan.Token == "" {
				return fmt.Errorf("plan-update printed %.200q", out)
			}
			return runCmd(nil, b.bin, "apply", tmp, plan.Token)
		})
		r.note = "omgdb plan-update, then omgdb apply: two processes"
		return r
	case "size":
		return fileSize(st)
	}
	return result{}
}

// processRuns times whole short processes: 20 per run, one sample each.
func (b *bench) processRuns(argv func(i int) []string) result {
	var r result
	for i := 0; i < 20*b.cfg.runs; i++ {
		a := argv(i)
		wall, cpu, err := timeOnce(func() error { return runCmd(nil, a[0], a[1:]...) })
		if err != nil {
			return skipped("failed: %v", err)
		}
		r.samples = append(r.samples, wall)
		r.cpu = append(r.cpu, cpu)
	}
	r.note = fmt.Sprintf("%d processes", len(r.samples))
	return r
}

// runCmd runs a command, feeding it stdin, discarding its output and
// reporting its standard error on failure.
func runCmd(stdin []byte, name string, args ...string) error {
	_, err := output(stdin, name, args...)
	return err
}

func output(stdin []byte, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, bytes.TrimSpace(errb.Bytes()))
	}
	return out.Bytes(), nil
}

// runPeak runs a command whose output goes through a pipe to nowhere, and
// returns the peak of its private (anonymous) resident memory, sampled
// from /proc every 5 ms, and its peak resident set as the kernel counts it
// (which includes file pages it maps, such as a store read through mmap).
func runPeak(name string, args ...string) (anonKB, rssKB int64, err error) {
	cmd := exec.Command(name, args...)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	done := make(chan struct{})
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			if b, err := os.ReadFile(status); err == nil {
				for line := range strings.Lines(string(b)) {
					if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
						anonKB = max(anonKB, int64(atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))))
					}
				}
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	err = cmd.Wait()
	done <- struct{}{}
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, bytes.TrimSpace(errb.Bytes()))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rssKB = ru.Maxrss
	}
	return anonKB, rssKB, nil
}

// peakRuns times runs of a command with runPeak and notes the largest
// peaks seen.
func (b *bench) peakRuns(name string, args ...string) result {
	var anon, rss int64
	r := b.timeRuns(nil, func() error {
		a, s, err := runPeak(name, args...)
		anon, rss = max(anon, a), max(rss, s)
		return err
	})
	r.note = fmt.Sprintf("whole process, output read through a pipe; peak private memory %d MiB (resident set %d MiB, with the file pages it maps)", anon>>10, rss>>10)
	return r
}

func fileSize(path string) result {
	fi, err := os.Stat(path)
	if err != nil {
		return skipped("no store: %v", err)
	}
	return result{samples: []float64{float64(fi.Size())}}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}
