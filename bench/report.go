package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// report is the outcome of a run, printed as text and written as Markdown.
type report struct {
	b       *bench
	elapsed time.Duration
	machine []string
	cols    []*system
}

func (b *bench) report(elapsed time.Duration) *report {
	r := &report{b: b, elapsed: elapsed, machine: machine()}
	for _, s := range systems {
		if _, ok := b.versions[s.id]; ok {
			r.cols = append(r.cols, s)
		}
	}
	return r
}

func machine() []string {
	cpu := "?"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := "?"
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(raw)); len(f) > 1 {
			mem = fmt.Sprintf("%.0f GiB", float64(atoi(f[1]))/(1<<20))
		}
	}
	kernel, _ := exec.Command("uname", "-sr").Output()
	return []string{
		fmt.Sprintf("CPU: %s, %d cores (nproc), %s memory", cpu, runtime.NumCPU(), mem),
		fmt.Sprintf("OS: %s; Go: %s %s/%s", strings.TrimSpace(string(kernel)), runtime.Version(), runtime.GOOS, runtime.GOARCH),
	}
}

// cell formats one result.
func (r *report) cell(w workload, s *system) string {
	res, ok := r.b.results[w.id][s.id]
	switch {
	case !ok || (len(res.samples) == 0 && res.skip == ""):
		return ""
	case res.skip != "":
		return "n/a"
	}
	st := stats(res.samples)
	if w.bytes {
		return fmtBytes(st.median)
	}
	cell := fmtStat(w, st)
	if len(res.cpu) > 0 {
		cell += "; CPU " + fmtDur(stats(res.cpu).median)
	}
	return cell
}

func fmtStat(w workload, st stat) string {
	if w.bytes {
		return fmtBytes(st.median)
	}
	if st.min == st.max {
		return fmtDur(st.median)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtDur(st.median), fmtDur(st.min), fmtDur(st.max))
}

func fmtDur(s float64) string {
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3g ms", s*1e3)
	}
	return fmt.Sprintf("%.3g s", s)
}

func fmtBytes(n float64) string { return fmt.Sprintf("%.0f MB", n/1e6) }

// median returns a system's median wall time (or size) for a workload,
// or false.
func (r *report) median(w, sys string) (float64, bool) {
	res, ok := r.b.results[w][sys]
	if !ok || len(res.samples) == 0 {
		return 0, false
	}
	return stats(res.samples).median, true
}

// cpuMedian returns a system's median CPU time for a workload, or false.
func (r *report) cpuMedian(w, sys string) (float64, bool) {
	res, ok := r.b.results[w][sys]
	if !ok || len(res.cpu) == 0 {
		return 0, false
	}
	return stats(res.cpu).median, true
}

// ratio is omgdb's figure over the best peer's, in wall time and in CPU
// time.
func (r *report) ratio(w workload) string {
	var parts []string
	for _, m := range []struct {
		name string
		f    func(w, sys string) (float64, bool)
	}{{"wall", r.median}, {"CPU", r.cpuMedian}} {
		if w.bytes && m.name == "CPU" {
			continue
		}
		om, ok := m.f(w.id, w.omgdb)
		if !ok {
			continue
		}
		best, bestSys := 0.0, ""
		for _, s := range r.cols {
			if strings.HasPrefix(s.id, "omgdb") {
				continue
			}
			if v, ok := m.f(w.id, s.id); ok && v > 0 && (bestSys == "" || v < best) {
				best, bestSys = v, s.id
			}
		}
		if bestSys != "" {
			name := m.name
			if w.bytes {
				name = "size"
			}
			parts = append(parts, fmt.Sprintf("%s %.2fx %s", name, om/best, bestSys))
		}
	}
	return strings.Join(parts, "; ")
}

// verdict checks the goals for a workload.
func (r *report) verdict(w workload) string {
	om, ok := r.median(w.id, w.omgdb)
	if !ok {
		if len(w.goal) > 0 || w.absWhat != "" {
			return "not measured"
		}
		return ""
	}
	var parts []string
	if w.absWhat != "" {
		mark := "met"
		if om > w.absGoal {
			mark = "MISSED"
		}
		parts = append(parts, fmt.Sprintf("%s: %s", w.absWhat, mark))
	}
	for _, g := range w.goal {
		p, ok := r.median(w.id, g.peer)
		if !ok {
			parts = append(parts, g.text+": no peer figure")
			continue
		}
		mark := "met"
		if om/p > g.max {
			mark = "MISSED"
		}
		text := fmt.Sprintf("%s: %s (wall %.2fx", g.text, mark, om/p)
		oc, ok1 := r.cpuMedian(w.id, w.omgdb)
		pc, ok2 := r.cpuMedian(w.id, g.peer)
		if ok1 && ok2 && pc > 0 {
			cmark := "met"
			if oc/pc > g.max {
				cmark = "missed"
			}
			text += fmt.Sprintf("; CPU %.2fx, %s", oc/pc, cmark)
		}
		parts = append(parts, text+")")
	}
	return strings.Join(parts, "; ")
}

func (r *report) header() []string {
	h := []string{"workload"}
	for _, s := range r.cols {
		h = append(h, s.name)
	}
	return append(h, "omgdb / best peer", "goal")
}

func (r *report) rows() [][]string {
	var rows [][]string
	for _, w := range workloads {
		if _, ran := r.b.results[w.id]; !ran {
			continue
		}
		row := []string{w.id + ": " + w.title}
		for _, s := range r.cols {
			row = append(row, r.cell(w, s))
		}
		rows = append(rows, append(row, r.ratio(w), r.verdict(w)))
	}
	return rows
}

// notes lists how cells were measured and why some are missing.
func (r *report) notes() []string {
	var out []string
	for _, w := range workloads {
		res := r.b.results[w.id]
		for _, s := range r.cols {
			x, ok := res[s.id]
			if !ok {
				continue
			}
			switch {
			case x.skip != "":
				out = append(out, fmt.Sprintf("%s, %s: n/a: %s", w.id, s.name, x.skip))
			case x.note != "":
				out = append(out, fmt.Sprintf("%s, %s: %s", w.id, s.name, x.note))
			}
		}
	}
	return out
}

func (r *report) setup() []string {
	b := r.b
	lines := append([]string{}, r.machine...)
	lines = append(lines,
		fmt.Sprintf("Dataset: %d documents, %s of NDJSON (%.0f bytes per document), seed %d", b.cfg.n, fmtBytes(float64(b.dataSize)), float64(b.dataSize)/float64(b.cfg.n), dataSeed),
		fmt.Sprintf("Runs: %d per workload (point reads: %d per run; whole-process point finds: %d processes); figures are median (min–max)", b.cfg.runs, len(b.ids), 20*b.cfg.runs),
		fmt.Sprintf("Command: go run ./bench -n %d -runs %d; total time %s; run at %s", b.cfg.n, b.cfg.runs, r.elapsed.Round(time.Second), time.Now().UTC().Format("2006-01-02 15:04 MST")))
	for _, s := range systems {
		if v, ok := b.versions[s.id]; ok {
			lines = append(lines, fmt.Sprintf("%s: %s", s.name, v))
		} else if why, ok := b.skips[s.id]; ok {
			lines = append(lines, fmt.Sprintf("%s: skipped: %s", s.name, why))
		}
	}
	var loads []string
	for _, w := range workloads {
		if l, ok := b.loads[w.id]; ok {
			loads = append(loads, fmt.Sprintf("%s %s → %s", w.id, l[0], l[1]))
		}
	}
	return append(lines, "Load average (1, 5, 15 min) before → after each workload: "+strings.Join(loads, "; "))
}

func (r *report) text() string {
	var buf bytes.Buffer
	for _, l := range r.setup() {
		fmt.Fprintln(&buf, l)
	}
	fmt.Fprintln(&buf)
	rows := append([][]string{r.header()}, r.rows()...)
	for _, row := range rows {
		fmt.Fprintln(&buf, strings.Join(row, " | "))
	}
	fmt.Fprintln(&buf)
	for _, n := range r.notes() {
		fmt.Fprintln(&buf, "- "+n)
	}
	return buf.String()
}

const (
	beginMark = "<!-- bench:begin (written by go run ./bench; edit outside these marks) -->"
	endMark   = "<!-- bench:end -->"
)

func (r *report) markdown() string {
	var g bytes.Buffer
	g.WriteString(beginMark + "\n\n")
	for _, l := range r.setup() {
		fmt.Fprintf(&g, "- %s\n", l)
	}
	g.WriteString("\n")
	h := r.header()
	g.WriteString("| " + strings.Join(h, " | ") + " |\n|" + strings.Repeat("---|", len(h)) + "\n")
	for _, row := range r.rows() {
		g.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	g.WriteString("\nNotes on the cells:\n\n")
	for _, n := range r.notes() {
		fmt.Fprintf(&g, "- %s\n", n)
	}
	g.WriteString("\n" + endMark + "\n")
	old, err := os.ReadFile(r.b.cfg.out)
	if err == nil {
		s := string(old)
		if i, j := strings.Index(s, beginMark), strings.Index(s, endMark); i >= 0 && j > i {
			return s[:i] + g.String() + s[j+len(endMark)+1:]
		}
	}
	return "# Benchmarks\n\n" + g.String()
}
