package zstd

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestCopyRoundTrip checks the copied package end to end: every level, one
// shot and streaming, on data that does and does not compress, with a
// decoder that must refuse a corrupted frame.
func TestCopyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261122, 1))
	random := make([]byte, 300_000)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var text bytes.Buffer
	for i := 0; text.Len() < 300_000; i++ {
		text.WriteString(`{"_id":`)
		text.WriteString(string(rune('0' + i%10)))
		text.WriteString(`,"name":"ada lovelace","tags":["math","engines"],"age":36}` + "\n")
	}
	inputs := map[string][]byte{"empty": nil, "one byte": {7}, "random": random, "json": text.Bytes()}

	dec, err := NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, level := range []EncoderLevel{SpeedFastest, SpeedDefault, SpeedBetterCompression, SpeedBestCompression} {
		enc, err := NewWriter(nil, WithEncoderLevel(level), WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		for name, in := range inputs {
			frame := enc.EncodeAll(in, nil)
			got, err := dec.DecodeAll(frame, nil)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s, level %v: one-shot round trip: err %v, %d bytes back of %d", name, level, err, len(got), len(in))
			}
			if name == "json" && len(frame)*4 > len(in) {
				t.Errorf("level %v compressed %d bytes of repetitive JSON to %d", level, len(in), len(frame))
			}

			var stream bytes.Buffer
			w, err := NewWriter(&stream, WithEncoderLevel(level))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(in); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(&stream)
			if err != nil {
				t.Fatal(err)
			}
			got, err = io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("%s, level %v: streaming round trip: err %v, %d bytes back of %d", name, level, err, len(got), len(in))
			}
		}
		enc.Close()
	}

	frame := (func() []byte {
		enc, _ := NewWriter(nil)
		defer enc.Close()
		return enc.EncodeAll(text.Bytes(), nil)
	})()
	frame[len(frame)/2] ^= 0xff
	if _, err := dec.DecodeAll(frame, nil); err == nil {
		t.Error("a frame with a flipped byte decoded without error")
	}
}
