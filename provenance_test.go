package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No code from another project enters this repository (DESIGN.md section
// 7): we depend on modules instead. checkProvenance is the guard that keeps
// it so. It reports every source file under root (test files included)
// whose comments carry a copyright line, and every licence or notice file
// below the root: such files arrive with copied code.

// copyrightLine matches a copyright notice: the word followed by a year,
// a "(c)" or a copyright sign; the sign followed by a year; an SPDX
// licence tag.
var copyrightLine = regexp.MustCompile(`(?i)(copyright\s*(\(c\)|©|[0-9]{4})|©\s*[0-9]{4}|SPDX-License-Identifier)`)

// licenceFile matches the names licences and notices travel under.
var licenceFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents|authors)([._-].*)?$`)

// sourceExts are the files whose comments are read.
var sourceExts = map[string]bool{".go": true, ".s": true, ".c": true, ".h": true, ".js": true, ".cjs": true, ".sh": true, ".py": true}

func checkProvenance(root string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if licenceFile.MatchString(name) {
			found = append(found, fmt.Sprintf("%s: a licence or notice file; code of another project is a module dependency, never a copy", rel))
			return nil
		}
		if !sourceExts[filepath.Ext(name)] {
			return nil
		}
		line, err := copyrightIn(path)
		if err != nil {
			return err
		}
		if line > 0 {
			found = append(found, fmt.Sprintf("%s:%d: a copyright line; code of another project is a module dependency, never a copy", rel, line))
		}
		return nil
	})
	return found, err
}

// copyrightIn returns the number of the first comment line of the file
// that carries a copyright notice, or 0.
func copyrightIn(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		comment := strings.HasPrefix(text, "//") || strings.HasPrefix(text, "/*") ||
			strings.HasPrefix(text, "*") || strings.HasPrefix(text, "#")
		if comment && copyrightLine.MatchString(text) {
			return n, nil
		}
	}
	return 0, sc.Err()
}

func TestProvenance(t *testing.T) {
	found, err := checkProvenance(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestProvenance_CatchesPlanted shows that the guard fails: it plants a
// copied file's header and a licence file in a copy of the layout.
func TestProvenance_CatchesPlanted(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("store/codec.go", "// Package store …\npackage store\n")
	if found, err := checkProvenance(root); err != nil || len(found) != 0 {
		t.Fatalf("clean tree: %v %v", found, err)
	}
	write("internal/zstd/enc.go", "// Copyright 2019+ Klaus Post. All rights reserved.\n// License information can be found in the LICENSE file.\npackage zstd\n")
	write("internal/zstd/LICENSE", "BSD 3-Clause License\n")
	write("internal/asm/crc_amd64.s", "// Copyright (c) 2011 The Go Authors.\nTEXT ·f(SB),4,$0\n")
	found, err := checkProvenance(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"internal/asm/crc_amd64.s:1: a copyright line", "internal/zstd/LICENSE: a licence", "internal/zstd/enc.go:1: a copyright line"}
	if len(found) != len(want) {
		t.Fatalf("found %d problems, want %d: %q", len(found), len(want), found)
	}
	for i := range want {
		if !strings.HasPrefix(found[i], filepath.FromSlash(want[i])) {
			t.Errorf("problem %d is %q, want one starting %q", i, found[i], want[i])
		}
	}
}
