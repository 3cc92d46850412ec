package cli_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/omgdb/omgdb/internal/crashtest"
)

// TestCrash_KillMongoImportMerge kills `omgdb import --mode merge` over
// MongoDB (FerretDB) with SIGKILL at random moments while it merges into
// 40 documents (and inserts 10). After each kill every document is its
// before- or after-image, and rollback (once the lease of a change left
// applying has expired) brings the collection back to exactly its
// documents before the import, compared whole.
func TestCrash_KillMongoImportMerge(t *testing.T) {
	t.Parallel()
	seed, s, db := mongoCrashSetup(t)
	const docs = 40
	var in strings.Builder
	for i := 0; i < docs+10; i++ {
		fmt.Fprintf(&in, `{"_id":%d,"v":{"$numberLong":"%d"},"tag":null}`+"\n", i, i+1000)
	}
	input := filepath.Join(t.TempDir(), "merge.ndjson")
	if err := os.WriteFile(input, []byte(in.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cycles := 8
	rolledBack := map[string]int{}
	for c := 0; c < cycles; c++ {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		coll := fmt.Sprintf("m%d", c)
		var many []any
		for i := 0; i < docs; i++ {
			many = append(many, bson.D{{Key: "_id", Value: int32(i)}, {Key: "v", Value: int32(i)}, {Key: "keep", Value: bson.A{int32(i), "x"}}})
		}
		if _, err := db.Collection(coll).InsertMany(context.Background(), many); err != nil {
			t.Fatal(err)
		}
		orig := collDocs(t, db, coll)
		delay := time.Duration(r.IntN(500000)) * time.Microsecond
		o, err := crashtest.Run(crashtest.Kill{Workload: "cli", Args: []string{"", "import", s.URI + "app", coll, input, "--mode", "merge"}, Delay: delay})
		if err != nil && (o == nil || !o.Exited) {
			t.Fatalf("cycle %d: %v", c, err)
		}
		if o.Exited && o.ExitCode != 0 {
			t.Fatalf("cycle %d: import exited %d: %s", c, o.ExitCode, o.Stderr)
		}
		for i, js := range collDocs(t, db, coll) {
			before := fmt.Sprintf(`{"_id": {"$numberInt":"%d"},"v": {"$numberInt":"%d"},"keep": [{"$numberInt":"%d"},"x"]}`, i, i, i)
			after := fmt.Sprintf(`{"_id": {"$numberInt":"%d"},"v": {"$numberLong":"%d"},"keep": [{"$numberInt":"%d"},"x"],"tag": null}`, i, i+1000, i)
			inserted := fmt.Sprintf(`{"_id": {"$numberInt":"%d"},"v": {"$numberLong":"%d"},"tag": null}`, i, i+1000)
			if got := strings.ReplaceAll(js, " ", ""); got != strings.ReplaceAll(before, " ", "") && got != strings.ReplaceAll(after, " ", "") && (i < docs || got != strings.ReplaceAll(inserted, " ", "")) {
				t.Errorf("%s: _id %d is neither its before- nor its after-image: %s", coll, i, js)
			}
		}
		rolledBack[rollbackKilled(t, db, s.URI+"app", coll, orig, rolledBack["applying"] == 0)]++
	}
	t.Logf("%d cycles, documents neither before nor after: 0; rolled back to the originals, by status found: %v", cycles, rolledBack)
}
