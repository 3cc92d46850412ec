package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// The sqlite3 CLI with text JSON, as a user of SQLite 3.40 would set it
// up: documents in a TEXT column under an INTEGER PRIMARY KEY, and virtual
// generated columns with indexes for the fields queried by equality and
// range. Queries are timed with .timer inside one process; import, update
// and point finds are timed as whole processes.

// SQL for the workloads. %s is the JSON function prefix: "json" for text,
// "jsonb" for JSONB (the functions that build values).
const (
	sqlScan  = `SELECT count(*) FROM users WHERE json_extract(doc,'$.address.city')='` + scanCity + `' AND json_extract(doc,'$.score')>=50`
	sqlRange = `SELECT count(*) FROM users WHERE age BETWEEN 30 AND 35`
	sqlGroup = `SELECT json_extract(doc,'$.address.city') AS city, count(*), avg(json_extract(doc,'$.score')) FROM users GROUP BY city`
)

func sqlUpdate(fn string) string {
	return `UPDATE users SET doc=` + fn + `_set(doc,'$.score',json_extract(doc,'$.score')+1,'$.flag',` + fn + `('true')) WHERE json_extract(doc,'$.plan')='` + updatePlan + `'`
}

func setupSqlite3(b *bench) (string, error) {
	out, err := exec.Command("sqlite3", "-version").Output()
	if err != nil {
		return "", fmt.Errorf("no sqlite3 CLI (apt-get install sqlite3)")
	}
	v := strings.Fields(string(out))
	return "sqlite3 CLI " + v[0], nil
}

func (b *bench) sqliteDB() string { return b.path("sqlite-text") + ".db" }

// sqliteImportScript loads the NDJSON through a temporary table (the CLI
// has no JSON import), in ASCII mode so that quotes pass through.
func (b *bench) sqliteImportScript() []byte {
	return []byte(".bail on\nCREATE TEMP TABLE raw(doc TEXT);\n.mode ascii\n.separator \"\x1f\" \"\\n\"\n" +
		".import --schema temp '" + b.data + "' raw\n" + `BEGIN;
CREATE TABLE users(id INTEGER PRIMARY KEY, doc TEXT NOT NULL,
  email TEXT GENERATED ALWAYS AS (json_extract(doc,'$.email')) VIRTUAL,
  age INTEGER GENERATED ALWAYS AS (json_extract(doc,'$.age')) VIRTUAL);
INSERT INTO users(id, doc) SELECT json_extract(doc,'$._id'), doc FROM temp.raw;
CREATE INDEX users_email ON users(email);
CREATE INDEX users_age ON users(age);
COMMIT;
`)
}

func (b *bench) sqliteEnsure() error {
	if _, err := os.Stat(b.sqliteDB()); err == nil {
		return nil
	}
	return runCmd(b.sqliteImportScript(), "sqlite3", b.sqliteDB())
}

func (b *bench) sqlite3(w string) result {
	db := b.sqliteDB()
	if w == "import" {
		script := b.sqliteImportScript()
		return b.timeRuns(func() error { return os.RemoveAll(db) }, func() error { return runCmd(script, "sqlite3", db) })
	}
	if w == "size" {
		return fileSize(db)
	}
	if err := b.sqliteEnsure(); err != nil {
		return skipped("import: %v", err)
	}
	switch w {
	case "cold", "floor-go", "floor-deps", "floor-all": // the floors stand beside the point find
		return b.processRuns(func(i int) []string {
			return []string{"sqlite3", db, fmt.Sprintf("SELECT doc FROM users WHERE id=%d", b.ids[i%len(b.ids)])}
		})
	case "rangefind":
		q := fmt.Sprintf("SELECT doc FROM users WHERE age BETWEEN %d AND %d", findLo, findHi)
		r := b.timeRuns(nil, func() error { return runCmd(nil, "sqlite3", db, q) })
		r.note = "whole process, output read through a pipe"
		return r
	case "sortfind":
		return b.peakRuns("sqlite3", db, "SELECT doc FROM users ORDER BY json_extract(doc,'$.score') DESC")
	case "get":
		return b.sqliteBatch(db, func(id int) string { return fmt.Sprintf("SELECT doc FROM users WHERE id=%d;", id) })
	case "eq":
		return b.sqliteBatch(db, func(id int) string { return fmt.Sprintf("SELECT doc FROM users WHERE email='%s';", emailOf(id)) })
	case "range":
		return b.sqliteTimer(db, sqlRange)
	case "scan":
		return b.sqliteTimer(db, sqlScan)
	case "group":
		return b.sqliteTimer(db, sqlGroup)
	case "update":
		tmp := b.path("sqlite-text-update") + ".db"
		defer os.Remove(tmp)
		r := b.timeRuns(func() error { return copyFile(db, tmp) }, func() error { return runCmd(nil, "sqlite3", tmp, sqlUpdate("json")) })
		r.note = "whole process"
		return r
	}
	return result{}
}

// sqliteTimer runs the query cfg.runs times in one process (after one
// warm-up) and reads the times .timer prints.
func (b *bench) sqliteTimer(db, q string) result {
	var s strings.Builder
	s.WriteString(q + ";\n.timer on\n")
	for i := 0; i < b.cfg.runs; i++ {
		s.WriteString(q + ";\n")
	}
	out, err := output([]byte(s.String()), "sqlite3", db)
	if err != nil {
		return skipped("%v", err)
	}
	var r result
	for _, line := range strings.Split(string(out), "\n") {
		// Run Time: real 0.012 user 0.010000 sys 0.001000
		if f := strings.Fields(line); len(f) >= 8 && f[0] == "Run" && f[2] == "real" {
			v, _ := strconv.ParseFloat(f[3], 64)
			u, _ := strconv.ParseFloat(f[5], 64)
			s, _ := strconv.ParseFloat(f[7], 64)
			r.samples = append(r.samples, v)
			r.cpu = append(r.cpu, u+s)
		}
	}
	if len(r.samples) != b.cfg.runs {
		return skipped("could not read .timer output: %q", out)
	}
	r.note = "in one process (.timer)"
	return r
}

// sqliteBatch times point queries, which .timer cannot resolve: a process
// running all the sample queries, less one running only the first, per
// query.
func (b *bench) sqliteBatch(db string, q func(id int) string) result {
	var all strings.Builder
	for _, id := range b.ids {
		all.WriteString(q(id) + "\n")
	}
	one := q(b.ids[0]) + "\n"
	var r result
	for i := 0; i < b.cfg.runs; i++ {
		t1, c1, err1 := timeOnce(func() error { return runCmd([]byte(one), "sqlite3", db) })
		tk, ck, err2 := timeOnce(func() error { return runCmd([]byte(all.String()), "sqlite3", db) })
		if err := errors.Join(err1, err2); err != nil {
			return skipped("%v", err)
		}
		r.samples = append(r.samples, (tk-t1)/float64(len(b.ids)-1))
		r.cpu = append(r.cpu, (ck-c1)/float64(len(b.ids)-1))
	}
	r.note = fmt.Sprintf("(process of %d queries − process of 1) / %d", len(b.ids), len(b.ids)-1)
	return r
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	// Synced here, untimed: otherwise the timed run's first fsync (a
	// commit) writes the whole copy back to disk, and the figure depends
	// on the store's size and on how far the kernel's writeback got.
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// jq filters the NDJSON file itself: it has no store.
func setupJq(b *bench) (string, error) {
	out, err := exec.Command("jq", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("no jq (apt-get install jq)")
	}
	return strings.TrimSpace(string(out)) + ", whole process over the NDJSON file", nil
}

func (b *bench) jq(w string) result {
	switch w {
	case "scan":
		prog := fmt.Sprintf(`select(.address.city == %q and .score >= %v) | 1`, scanCity, scanScore)
		var n int
		r := b.timeRuns(nil, func() error {
			out, err := output(nil, "jq", "-c", prog, b.data)
			n = bytes.Count(out, []byte("\n"))
			return err
		})
		r.note = fmt.Sprintf("%d matches, whole process", n)
		return r
	}
	return result{}
}
