package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// importReadersMain is omgdb-import-readers <store> <coll> <input> <batch>
// <pre-count> <backup>: run `omgdb import` of input in batches of batch
// documents and, while it runs, an `omgdb mcp --scope read` server
// answering count and find calls on standard input and output, `omgdb
// count` and `omgdb find` processes, and one `omgdb backup` to the backup
// path. Every read must succeed within its default lock timeout (MCP 2 s,
// CLI 5 s) and see the pre-count documents plus whole batches only. It
// prints what the readers did, with the slowest answer of each kind.
func importReadersMain() {
	path, coll, input, backup := os.Args[1], os.Args[2], os.Args[3], os.Args[6]
	batch, _ := strconv.Atoi(os.Args[4])
	pre, _ := strconv.Atoi(os.Args[5])
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		os.Exit(1)
	}
	imp := exec.Command("omgdb", "import", path, coll, input, "--batch-size", strconv.Itoa(batch))
	var impOut, impErr bytes.Buffer
	imp.Stdout, imp.Stderr = &impOut, &impErr
	mcp, err := startMCP()
	if err != nil {
		fail("start mcp: %v", err)
	}
	if err := imp.Start(); err != nil {
		fail("start import: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- imp.Wait() }()

	whole := func(what string, n int) {
		if n < pre || (n-pre)%batch != 0 {
			fail("%s saw %d documents: not %d plus whole batches of %d", what, n, pre, batch)
		}
	}
	// The highest numeric _id a find returns, plus one: a whole number of
	// batches (the input's _ids are 0, 1, 2, … in order).
	top := func(what string, docs []map[string]any) int {
		if len(docs) == 0 {
			return 0
		}
		id, ok := docs[0]["_id"].(float64)
		if !ok {
			fail("%s: unexpected document %v", what, docs[0])
		}
		return int(id) + 1
	}
	filter := `{"_id":{"$gte":0}}`
	stats := map[string]*readStat{}
	stat := func(kind string, d time.Duration) {
		s := stats[kind]
		if s == nil {
			s = &readStat{}
			stats[kind] = s
		}
		s.n++
		s.max = max(s.max, d)
	}
	counts := map[int]bool{}
	backedUp := -1
	var done bool
	var impErrV error
	for !done {
		select {
		case impErrV = <-exited:
			done = true // one more round of reads after the import
		default:
		}
		start := time.Now()
		res, err := mcp.call("count", map[string]any{"path": path, "collection": coll})
		if err != nil {
			fail("mcp count: %v", err)
		}
		stat("mcp count", time.Since(start))
		n := int(res["count"].(float64))
		whole("mcp count", n)
		counts[n] = true

		start = time.Now()
		res, err = mcp.call("find", map[string]any{"path": path, "collection": coll,
			"filter": json.RawMessage(filter), "sort": map[string]int{"_id": -1}, "limit": 1, "project": map[string]int{"_id": 1}})
		if err != nil {
			fail("mcp find: %v", err)
		}
		stat("mcp find", time.Since(start))
		var docs []map[string]any
		for _, d := range res["documents"].([]any) {
			docs = append(docs, d.(map[string]any))
		}
		if m := top("mcp find", docs); m%batch != 0 {
			fail("mcp find: highest _id %d: not whole batches of %d", m-1, batch)
		}

		start = time.Now()
		out, err := omgdb("count", path, coll)
		if err != nil {
			fail("omgdb count: %v", err)
		}
		stat("cli count", time.Since(start))
		n, _ = strconv.Atoi(strings.TrimSpace(out))
		whole("omgdb count", n)
		counts[n] = true

		start = time.Now()
		out, err = omgdb("find", path, coll, filter, "--sort", `{"_id":-1}`, "--limit", "1", "--project", `{"_id":1}`)
		if err != nil {
			fail("omgdb find: %v", err)
		}
		stat("cli find", time.Since(start))
		docs = nil
		if s := strings.TrimSpace(out); s != "" {
			var d map[string]any
			json.Unmarshal([]byte(s), &d)
			docs = append(docs, d)
		}
		if m := top("omgdb find", docs); m%batch != 0 {
			fail("omgdb find: highest _id %d: not whole batches of %d", m-1, batch)
		}

		if backedUp < 0 && n > pre && !done {
			start = time.Now()
			if _, err := omgdb("backup", path, backup); err != nil {
				fail("omgdb backup: %v", err)
			}
			stat("cli backup", time.Since(start))
			backedUp = n
		}
	}
	if impErrV != nil {
		fail("import: %v: %s", impErrV, impErr.String())
	}
	mcp.close()
	fmt.Print(impOut.String())
	fmt.Printf("during the import: %d different counts, each of whole batches; backup taken at %d documents\n", len(counts), backedUp)
	for _, k := range []string{"mcp count", "mcp find", "cli count", "cli find", "cli backup"} {
		if s := stats[k]; s != nil {
			fmt.Printf("%s: %d answers, slowest %d ms\n", k, s.n, s.max.Milliseconds())
		}
	}
}

type readStat struct {
	n   int
	max time.Duration
}

// omgdb runs an omgdb command in a process of its own and returns its
// standard output; a non-zero exit is an error carrying standard error.
func omgdb(args ...string) (string, error) {
	cmd := exec.Command("omgdb", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, stderr.String())
	}
	return string(out), nil
}

// mcpClient speaks newline-delimited JSON-RPC to an `omgdb mcp` process.
type mcpClient struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startMCP() (*mcpClient, error) {
	cmd := exec.Command("omgdb", "mcp", "--scope", "read")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &mcpClient{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "clientInfo": map[string]any{"name": "import-readers"}}); err != nil {
		return nil, err
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c, nil
}

func (c *mcpClient) request(method string, params any) (map[string]any, error) {
	c.id++
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	resp, err := c.out.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var r struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, fmt.Errorf("%v: %s", err, resp)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s", r.Error)
	}
	return r.Result, nil
}

// call calls a tool and returns its structured content; a tool error is
// an error.
func (c *mcpClient) call(name string, args map[string]any) (map[string]any, error) {
	res, err := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	if isErr, _ := res["isError"].(bool); isErr {
		return nil, fmt.Errorf("%v", res["content"])
	}
	sc, ok := res["structuredContent"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no structured content: %v", res)
	}
	return sc, nil
}

func (c *mcpClient) close() {
	c.in.Close()
	c.cmd.Wait()
}

// plansMain is omgdb-plans <store> <coll> <rounds> <done-file>: in each
// round, plan an update setting v to the round's number on every document
// (`omgdb plan-update`) and apply it (`omgdb apply`); every third round,
// roll the change back (`omgdb rollback`) and apply a new plan. Each is a
// process of its own and one transaction. Then create done-file.
func plansMain() {
	path, coll, done := os.Args[1], os.Args[2], os.Args[4]
	rounds, _ := strconv.Atoi(os.Args[3])
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		os.Exit(1)
	}
	apply := func(v int) string {
		out, err := omgdb("plan-update", path, coll, "{}", fmt.Sprintf(`{"$set":{"v":%d}}`, v))
		if err != nil {
			fail("plan-update: %v", err)
		}
		var plan struct{ Token string }
		json.Unmarshal([]byte(out), &plan)
		if _, err := omgdb("apply", path, plan.Token); err != nil {
			fail("apply: %v", err)
		}
		return plan.Token
	}
	applied, rolledBack := 0, 0
	for r := 1; r <= rounds; r++ {
		token := apply(r)
		applied++
		if r%3 == 0 {
			if _, err := omgdb("rollback", path, token); err != nil {
				fail("rollback: %v", err)
			}
			rolledBack++
			apply(r)
			applied++
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Printf("applied %d plans, rolled back %d\n", applied, rolledBack)
	os.WriteFile(done, []byte("done\n"), 0o644)
}

// uniformMain is omgdb-uniform <store> <coll> <ready-file> <until-file>:
// create ready-file, then export the collection until until-file exists,
// checking that every document of each export has the same v: an applied
// plan or a rollback is seen whole or not at all.
func uniformMain() {
	path, coll, until := os.Args[1], os.Args[2], os.Args[4]
	os.WriteFile(os.Args[3], []byte("ready\n"), 0o644)
	reads, seen := 0, map[string]bool{}
	for {
		_, err := os.Stat(until)
		done := err == nil
		out, err := omgdb("export", path, coll)
		if err != nil {
			fmt.Fprintf(os.Stderr, "export: %v\n", err)
			os.Exit(1)
		}
		vs := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			_, after, _ := strings.Cut(line, `"v":`)
			v, _, _ := strings.Cut(after, "}")
			vs[v]++
		}
		if len(vs) != 1 {
			fmt.Fprintf(os.Stderr, "read %d: documents with different v (value: documents): %v\n", reads, vs)
			os.Exit(1)
		}
		for v := range vs {
			seen[v] = true
		}
		reads++
		if done {
			break
		}
	}
	fmt.Printf("%d reads, each of one plan's state; saw %d different states\n", reads, len(seen))
}
