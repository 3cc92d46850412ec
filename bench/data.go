package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// The dataset: users with a nested address, tags and a few orders, about
// 300 bytes of NDJSON each, generated from a fixed seed so that every run
// and every machine sees the same bytes.
const dataSeed = 20260522

var (
	cities = []string{"Paris", "Berlin", "Lagos", "Lima", "Osaka", "Austin", "Pune", "Quito", "Oslo", "Accra",
		"Hanoi", "Porto", "Dakar", "Cairo", "Delhi", "Tunis", "Seoul", "Milan", "Perth", "Cusco"}
	first = []string{"Ana", "Bo", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Mo", "Nia", "Ola", "Pia"}
	last  = []string{"Lima", "Sato", "Okafor", "Berg", "Rossi", "Diaz", "Nguyen", "Kim", "Mensah", "Costa", "Silva", "Moreau"}
	tags  = []string{"go", "db", "ml", "ops", "web", "ios", "rust", "sql", "ui", "qa", "sec", "data"}
	skus  = []string{"BOOK", "MUG", "SHIRT", "CABLE", "LAMP", "PEN", "BAG", "CAP"}
)

// Filters and values the workloads use; the generator makes their
// selectivity known: age is uniform over [18,88), so 30..35 selects 6/70
// of the documents (8.6%); plan "team" is 8.3% (the 83,000 updates of the issue); a city is 5%.
const (
	rangeLo, rangeHi = 30, 35
	// findLo and findHi bound the range find that prints its documents:
	// 28,696 of 1,000,000 (2.9%).
	findLo, findHi = 30, 31
	scanCity       = "Lima"
	scanScore      = 50.0
	updatePlan     = "team"
)

// appendDoc appends document i as one line of JSON.
func appendDoc(b []byte, r *rand.Rand, i int) []byte {
	b = append(b, `{"_id":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"name":"`...)
	b = append(b, first[r.IntN(len(first))]...)
	b = append(b, ' ')
	b = append(b, last[r.IntN(len(last))]...)
	b = append(b, `","email":"`...)
	b = append(b, emailOf(i)...)
	b = append(b, `","age":`...)
	b = strconv.AppendInt(b, int64(18+r.IntN(70)), 10)
	b = append(b, `,"active":`...)
	b = strconv.AppendBool(b, r.IntN(3) != 0)
	b = append(b, `,"plan":"`...)
	switch p := r.IntN(1000); {
	case p < 83:
		b = append(b, updatePlan...)
	case p < 383:
		b = append(b, "pro"...)
	default:
		b = append(b, "free"...)
	}
	b = append(b, `","score":`...)
	b = strconv.AppendFloat(b, float64(r.IntN(10000))/100+0.001, 'f', 3, 64)
	b = append(b, `,"address":{"street":"`...)
	b = strconv.AppendInt(b, int64(1+r.IntN(300)), 10)
	b = append(b, ` Main St","city":"`...)
	b = append(b, cities[r.IntN(len(cities))]...)
	b = append(b, `","zip":"`...)
	b = append(b, fmt.Sprintf("%05d", r.IntN(100000))...)
	b = append(b, `","geo":[`...)
	b = strconv.AppendFloat(b, float64(r.IntN(18000)-9000)/100, 'f', 2, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, float64(r.IntN(36000)-18000)/100, 'f', 2, 64)
	b = append(b, `]},"tags":[`...)
	for k, n := 0, 1+r.IntN(3); k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), tags[r.IntN(len(tags))]...), '"')
	}
	b = append(b, `],"orders":[`...)
	for k, n := 0, 1+r.IntN(2); k < n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"sku":"`...)
		b = append(b, skus[r.IntN(len(skus))]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(r.IntN(1000)), 10)
		b = append(b, `","qty":`...)
		b = strconv.AppendInt(b, int64(1+r.IntN(5)), 10)
		b = append(b, `,"price":`...)
		b = strconv.AppendFloat(b, float64(100+r.IntN(9900))/100, 'f', 2, 64)
		b = append(b, '}')
	}
	b = append(b, `],"created":{"$date":`...)
	b = strconv.AppendInt(b, 1704067200000+int64(r.IntN(700*86400))*1000, 10)
	return append(b, "}}\n"...)
}

func emailOf(i int) string { return "user" + strconv.Itoa(i) + "@example.com" }

// dataset writes (or reuses) the NDJSON file of n documents in dir.
func dataset(dir string, n int) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("users-%d.ndjson", n))
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return path, nil
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(dataSeed, uint64(n)))
	buf := make([]byte, 0, 1024)
	for i := 0; i < n; i++ {
		buf = appendDoc(buf[:0], r, i)
		if _, err := w.Write(buf); err != nil {
			f.Close()
			return "", err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// sampleIDs returns k ids in [0,n), seeded, for point reads.
func sampleIDs(n, k int) []int {
	r := rand.New(rand.NewPCG(dataSeed, 7))
	ids := make([]int, k)
	for i := range ids {
		ids[i] = r.IntN(n)
	}
	return ids
}
