package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "retrieval:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: retrieval go [dir] | debian FILE… | sample N SEED")
	}
	switch args[0] {
	case "go":
		root := filepath.Join(runtime.GOROOT(), "src")
		if len(args) > 1 {
			root = args[1]
		}
		items, err := goItems(root)
		if err != nil {
			return err
		}
		return writeItems(os.Stdout, dedupe(items))
	case "debian":
		var all []item
		for _, f := range args[1:] {
			data, err := readMaybeCompressed(f)
			if err != nil {
				return err
			}
			items, err := debianItems(bytes.NewReader(data))
			if err != nil {
				return err
			}
			all = append(all, items...)
		}
		return writeItems(os.Stdout, dedupe(all))
	case "sample":
		if len(args) != 4 {
			return fmt.Errorf("usage: retrieval sample N SEED FILE")
		}
		n, _ := strconv.Atoi(args[1])
		seed, _ := strconv.ParseInt(args[2], 10, 64)
		items, err := readItems(args[3])
		if err != nil {
			return err
		}
		rand.New(rand.NewSource(seed)).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		if n < len(items) {
			items = items[:n]
		}
		return writeItems(os.Stdout, dedupe(items))
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// readMaybeCompressed reads a file, decompressing apt's .lz4 lists with
// apt-helper.
func readMaybeCompressed(path string) ([]byte, error) {
	if strings.HasSuffix(path, ".lz4") || strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".xz") {
		return exec.Command("/usr/lib/apt/apt-helper", "cat-file", path).Output()
	}
	return os.ReadFile(path)
}
