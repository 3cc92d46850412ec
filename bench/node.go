package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

//go:embed peers.cjs
var peersJS []byte

// nodeSpec is what peers.cjs is told.
type nodeSpec struct {
	Sys        string  `json:"sys"`
	Work       string  `json:"work"`
	Peers      string  `json:"peers"`
	Data       string  `json:"data"`
	DB         string  `json:"db"`
	Runs       int     `json:"runs"`
	IDs        []int   `json:"ids"`
	ScanCity   string  `json:"scanCity"`
	ScanScore  float64 `json:"scanScore"`
	RangeLo    int     `json:"rangeLo"`
	RangeHi    int     `json:"rangeHi"`
	UpdatePlan string  `json:"updatePlan"`
}

type nodeOut struct {
	Samples []float64 `json:"samples"`
	CPU     []float64 `json:"cpu"`
	Note    string    `json:"note"`
	Skip    string    `json:"skip"`
	Version string    `json:"version"`
}

var nodeDBExt = map[string]string{"jsonb": ".db", "duckdb": ".duckdb"}

func (b *bench) node(sys, work string) (nodeOut, error) {
	script := filepath.Join(b.cfg.work, "peers.cjs")
	if err := os.WriteFile(script, peersJS, 0o644); err != nil {
		return nodeOut{}, err
	}
	spec, _ := json.Marshal(nodeSpec{Sys: sys, Work: work, Peers: b.cfg.peersDir, Data: b.data,
		DB: b.nodeDB(sys), Runs: b.cfg.runs, IDs: b.ids, ScanCity: scanCity, ScanScore: scanScore,
		RangeLo: rangeLo, RangeHi: rangeHi, UpdatePlan: updatePlan})
	raw, err := output(nil, "node", "--max-old-space-size=8192", script, string(spec))
	if err != nil {
		return nodeOut{}, err
	}
	var out nodeOut
	if err := json.Unmarshal(raw, &out); err != nil {
		return nodeOut{}, fmt.Errorf("peers.cjs printed %q: %v", raw, err)
	}
	return out, nil
}

func (b *bench) nodeDB(sys string) string {
	if ext, ok := nodeDBExt[sys]; ok {
		return b.path("%s", sys) + ext
	}
	return ""
}

func setupNode(sys string) func(*bench) (string, error) {
	return func(b *bench) (string, error) {
		if _, err := exec.LookPath("node"); err != nil {
			return "", fmt.Errorf("no node (apt-get install nodejs npm, then bash bench/setup.sh)")
		}
		out, err := b.node(sys, "version")
		if err != nil {
			return "", fmt.Errorf("not installed or not working (run bash bench/setup.sh): %v", err)
		}
		if out.Skip != "" {
			return "", fmt.Errorf("not installed or not working (run bash bench/setup.sh): %s", out.Skip)
		}
		return out.Version, nil
	}
}

func nodeRun(sys string) func(*bench, string) result {
	return func(b *bench, w string) result {
		if w == "size" {
			if db := b.nodeDB(sys); db != "" {
				return fileSize(db)
			}
			return result{}
		}
		out, err := b.node(sys, w)
		if err != nil {
			return skipped("%v", err)
		}
		return result{samples: out.Samples, cpu: out.CPU, note: out.Note, skip: out.Skip}
	}
}
