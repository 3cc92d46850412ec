package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/omgdb/omgdb/engine"
	"github.com/omgdb/omgdb/query/value"
)

// reader passes n documents {"i":0…} to each, then returns end.
func reader(n int, end error, sent *int) func(context.Context, func(value.Value) error) error {
	return func(_ context.Context, each func(value.Value) error) error {
		for i := range n {
			if err := each(value.ObjectValue([]value.Field{{Key: "i", Value: value.LongValue(int64(i))}})); err != nil {
				return err
			}
			*sent++
		}
		return end
	}
}

func TestStream_ReadsAllThenErr(t *testing.T) {
	boom := errors.New("boom")
	var sent int
	src := engine.Stream(context.Background(), reader(3, boom, &sent))
	defer src.Close()
	var got []int64
	for src.Next() {
		got = append(got, src.Doc().Get("i").Long())
	}
	if len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Fatalf("got %v, want [0 1 2]", got)
	}
	if !errors.Is(src.Err(), boom) {
		t.Fatalf("Err() = %v, want boom", src.Err())
	}
}

// Closing early stops the read: it never passes more than the document
// being waited for, and the source reports no error.
func TestStream_CloseStopsRead(t *testing.T) {
	var sent int
	src := engine.Stream(context.Background(), reader(1000, nil, &sent))
	for range 2 {
		if !src.Next() {
			t.Fatal("Next() = false before the end")
		}
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if sent > 3 {
		t.Fatalf("the read went on to %d documents after Close", sent)
	}
	if src.Next() || src.Err() != nil {
		t.Fatalf("after Close: Next() true or Err() = %v", src.Err())
	}
	if err := src.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
