package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

// workload is one row of the report.
type workload struct {
	id, title string
	bytes     bool   // the figure is a size, not a time
	perOp     bool   // the figure is the time of one operation of many
	omgdb     string // the omgdb system whose figure the ratio uses
	goal      []goal // the "done when" for this row
	absGoal   float64
	absWhat   string
}

// goal: omgdb's figure divided by peer's must be at most max.
type goal struct {
	peer string
	max  float64
	text string
}

var workloads = []workload{
	{id: "import", title: "bulk NDJSON import + 2 indexes (email, age)", omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.0, "faster than the sqlite3 CLI"}, {"jsonb", 1.3, "within 1.3x of SQLite JSONB"}}},
	{id: "get", title: "point get by _id, in process (per get)", perOp: true, omgdb: "omgdb-lib"},
	{id: "cold", title: "point find by _id, whole cold process", perOp: true, omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.2, "within 1.2x of the sqlite3 CLI"}}},
	{id: "version", title: "process start: `omgdb version`, whole process", perOp: true, omgdb: "omgdb-cli",
		absGoal: 0.003, absWhat: "under 3 ms"},
	{id: "floor-go", title: "start-up floor: a Go program that only prints (bench/floor/hello) beside the sqlite3 CLI's point find", perOp: true, omgdb: "omgdb-cli"},
	{id: "floor-deps", title: "start-up floor: the same, linking omgdb's third-party packages (bench/floor/deps) beside the sqlite3 CLI's point find", perOp: true, omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.2, "the point find's goal: above it, the dependencies alone miss it"}}},
	{id: "floor-all", title: "start-up floor: the same, linking every package omgdb's packages import, the standard library's too (bench/floor/all), beside the sqlite3 CLI's point find", perOp: true, omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.2, "the point find's goal: above it, what omgdb depends on alone misses it"}}},
	{id: "eq", title: "indexed equality find (email), in process (per find)", perOp: true, omgdb: "omgdb-lib"},
	{id: "rangefind", title: "indexed range find printing every document (age 30..31, 2.9%), whole process", omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.0, "at or below the sqlite3 CLI"}}},
	{id: "sortfind", title: "unindexed sort printing every document (score descending), whole process", omgdb: "omgdb-cli",
		goal: []goal{{"sqlite3", 1.5, "within 1.5x of the sqlite3 CLI's ORDER BY json_extract"}}},
	{id: "range", title: "indexed range count (age 30..35, 8.6%)", omgdb: "omgdb-lib",
		goal: []goal{{"jsonb", 2.0, "within 2x of SQLite JSONB"}}},
	{id: "scan", title: "unindexed two-predicate count (address.city, score)", omgdb: "omgdb-lib",
		goal: []goal{{"jsonb", 1.0, "at or ahead of SQLite JSONB"}}},
	{id: "group", title: "group by city with count and avg(score)", omgdb: "omgdb-lib",
		goal: []goal{{"sqlite3", 0.2, "5x faster than the sqlite3 CLI"}, {"jsonb", 0.2, "5x faster than SQLite JSONB"}}},
	{id: "update", title: "update 8.3% of documents ($inc score, $set flag)", omgdb: "omgdb-lib",
		goal: []goal{{"jsonb", 1.5, "within 1.5x of SQLite JSONB"}}},
	{id: "vector", title: "vector top-10, 100,000 × 256 float32", omgdb: "omgdb-lib",
		absGoal: 1.5 * 0.0055, absWhat: "within 1.5x of the 5.5 ms SIMD floor"},
	{id: "size", title: "store size on disk", bytes: true, omgdb: "omgdb-cli"},
}

func workloadIDs() string {
	ids := make([]string, len(workloads))
	for i, w := range workloads {
		ids[i] = w.id
	}
	return strings.Join(ids, ",")
}

func findWorkload(id string) *workload {
	for i := range workloads {
		if workloads[i].id == id {
			return &workloads[i]
		}
	}
	return nil
}

// result is what one system measured for one workload.
type result struct {
	samples []float64 // seconds (or bytes), one per run
	cpu     []float64 // CPU seconds (user + system, all threads), one per run
	note    string    // how it was measured, when not obvious
	skip    string    // why there is no figure
}

func skipped(format string, args ...any) result { return result{skip: fmt.Sprintf(format, args...)} }

// system is one column of the report.
type system struct {
	id, name string
	// setup checks that the system is available and returns its version,
	// or an error saying why it is skipped.
	setup func(b *bench) (string, error)
	run   func(b *bench, w string) result
}

var systems = []*system{
	{id: "omgdb-lib", name: "omgdb library", setup: setupOmgdbLib, run: (*bench).omgdbLib},
	{id: "omgdb-cli", name: "omgdb CLI", setup: setupOmgdbCLI, run: (*bench).omgdbCLI},
	{id: "sqlite3", name: "sqlite3 CLI (text JSON)", setup: setupSqlite3, run: (*bench).sqlite3},
	{id: "jsonb", name: "SQLite JSONB (better-sqlite3)", setup: setupNode("jsonb"), run: nodeRun("jsonb")},
	{id: "duckdb", name: "DuckDB (node-api)", setup: setupNode("duckdb"), run: nodeRun("duckdb")},
	{id: "jq", name: "jq", setup: setupJq, run: (*bench).jq},
	{id: "mingo", name: "mingo (JS, in memory)", setup: setupNode("mingo"), run: nodeRun("mingo")},
}

func systemIDs() string {
	ids := make([]string, len(systems))
	for i, s := range systems {
		ids[i] = s.id
	}
	return strings.Join(ids, ",")
}

func findSystem(id string) *system {
	for _, s := range systems {
		if s.id == id {
			return s
		}
	}
	return nil
}

// bench holds one run of the program.
type bench struct {
	cfg      config
	data     string // the NDJSON dataset
	dataSize int64
	ids      []int // sample ids for point reads
	bin      string
	canIndex bool              // this omgdb has create-index
	versions map[string]string // system id -> version, for available systems
	skips    map[string]string // system id -> why it is unavailable
	results  map[string]map[string]result
	loads    map[string][2]string // workload -> load average before and after
}

func newBench(cfg config) (*bench, error) {
	if err := os.MkdirAll(cfg.work, 0o755); err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, versions: map[string]string{}, skips: map[string]string{},
		results: map[string]map[string]result{}, loads: map[string][2]string{}}
	t := time.Now()
	var err error
	if b.data, err = dataset(cfg.work, cfg.n); err != nil {
		return nil, fmt.Errorf("generate data: %w", err)
	}
	fi, err := os.Stat(b.data)
	if err != nil {
		return nil, err
	}
	b.dataSize = fi.Size()
	logf("dataset %s: %d documents, %d bytes (%.0f bytes/doc), ready in %s", b.data, cfg.n, b.dataSize,
		float64(b.dataSize)/float64(cfg.n), time.Since(t).Round(time.Millisecond))
	b.ids = sampleIDs(cfg.n, 1000)
	for _, s := range systems {
		if cfg.systems != nil && !cfg.systems[s.id] {
			continue
		}
		v, err := s.setup(b)
		if err != nil {
			b.skips[s.id] = err.Error()
			logf("%s: skipped: %v", s.name, err)
			continue
		}
		b.versions[s.id] = v
		logf("%s: %s", s.name, v)
	}
	return b, nil
}

func (b *bench) close() {
	if !b.cfg.keep {
		os.RemoveAll(b.cfg.work)
	}
}

// path returns a file in the working directory named for this dataset.
func (b *bench) path(format string, args ...any) string {
	return filepath.Join(b.cfg.work, fmt.Sprintf(format, args...)+fmt.Sprintf("-%d", b.cfg.n))
}

func (b *bench) runAll() error {
	for _, w := range workloads {
		if b.cfg.only != nil && !b.cfg.only[w.id] && w.id != "size" {
			continue
		}
		before := loadAvg()
		b.results[w.id] = map[string]result{}
		for _, s := range systems {
			if _, ok := b.versions[s.id]; !ok {
				continue
			}
			t := time.Now()
			r := s.run(b, w.id)
			b.results[w.id][s.id] = r
			switch {
			case r.skip != "":
				logf("%-8s %-30s skipped: %s", w.id, s.name, r.skip)
			case len(r.samples) > 0:
				cpu := ""
				if len(r.cpu) > 0 {
					cpu = "; CPU " + fmtDur(stats(r.cpu).median)
				}
				logf("%-8s %-30s %s%s (%s)", w.id, s.name, fmtStat(w, stats(r.samples)), cpu, time.Since(t).Round(time.Millisecond))
			}
		}
		b.loads[w.id] = [2]string{before, loadAvg()}
	}
	return nil
}

// timeRuns runs fn cfg.runs times and returns the durations in seconds.
// prep, when set, runs untimed before each run.
func (b *bench) timeRuns(prep func() error, fn func() error) result {
	var r result
	for i := 0; i < b.cfg.runs; i++ {
		if prep != nil {
			if err := prep(); err != nil {
				return skipped("failed: %v", err)
			}
		}
		runtime.GC()
		wall, cpu, err := timeOnce(fn)
		if err != nil {
			return skipped("failed: %v", err)
		}
		r.samples = append(r.samples, wall)
		r.cpu = append(r.cpu, cpu)
	}
	return r
}

// timeOnce runs fn and returns its wall time and the CPU time this
// process and the child processes it waited for spent meanwhile.
func timeOnce(fn func() error) (wall, cpu float64, err error) {
	c := cpuTime()
	t := time.Now()
	err = fn()
	return time.Since(t).Seconds(), cpuTime() - c, err
}

// cpuTime returns the user and system time of this process and of its
// waited-for children, in seconds.
func cpuTime() float64 {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	sec := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return sec(self.Utime) + sec(self.Stime) + sec(kids.Utime) + sec(kids.Stime)
}

type stat struct{ median, min, max float64 }

func stats(s []float64) stat {
	c := append([]float64(nil), s...)
	sort.Float64s(c)
	m := c[len(c)/2]
	if len(c)%2 == 0 {
		m = (c[len(c)/2-1] + c[len(c)/2]) / 2
	}
	return stat{m, c[0], c[len(c)-1]}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
