package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"
)

type config struct {
	n        int
	runs     int
	only     map[string]bool
	systems  map[string]bool
	out      string
	work     string
	peersDir string
	keep     bool
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cfg := config{}
	home, _ := os.UserHomeDir()
	fs.IntVar(&cfg.n, "n", 100000, "documents in the dataset (100000 or 1000000)")
	fs.IntVar(&cfg.runs, "runs", 5, "timed runs of each workload (at least 5 for a report)")
	only := fs.String("only", "", "comma-separated workloads to run (default all): "+workloadIDs())
	systems := fs.String("systems", "", "comma-separated systems to run (default all): "+systemIDs())
	fs.StringVar(&cfg.out, "out", "docs/benchmarks.md", "Markdown report to write ('' for none)")
	fs.StringVar(&cfg.work, "work", filepath.Join(os.TempDir(), "omgdb-bench"), "working directory for data and stores")
	fs.StringVar(&cfg.peersDir, "peers", envOr("OMGDB_BENCH_PEERS", filepath.Join(home, ".cache", "omgdb-bench")), "where bench/setup.sh installed the npm peers")
	fs.BoolVar(&cfg.keep, "keep", true, "keep the dataset and stores in -work for the next run")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of this process (the library's work) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.runs < 1 || cfg.n < 100 {
		return fmt.Errorf("need -runs >= 1 and -n >= 100")
	}
	cfg.only, cfg.systems = set(*only), set(*systems)
	for id := range cfg.only {
		if findWorkload(id) == nil {
			return fmt.Errorf("unknown workload %q; known: %s", id, workloadIDs())
		}
	}
	for id := range cfg.systems {
		if findSystem(id) == nil {
			return fmt.Errorf("unknown system %q; known: %s", id, systemIDs())
		}
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	b, err := newBench(cfg)
	if err != nil {
		return err
	}
	defer b.close()
	start := time.Now()
	if err := b.runAll(); err != nil {
		return err
	}
	rep := b.report(time.Since(start))
	fmt.Print(rep.text())
	if cfg.out != "" {
		if err := writeFileAtomic(cfg.out, []byte(rep.markdown())); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "bench: wrote", cfg.out)
	}
	return nil
}

func set(list string) map[string]bool {
	if list == "" {
		return nil
	}
	m := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			m[s] = true
		}
	}
	return m
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
