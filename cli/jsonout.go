package cli

import (
	"bytes"
	"encoding/json"
)

// encode writes a result struct as a document of the output: the JSON
// that printJSON writes, as one line of NDJSON or in the output's format.
func (o *output) encode(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return o.json(bytes.TrimRight(b.Bytes(), "\n"))
}

// printJSON writes a result struct as one line of JSON (indented with
// pretty). HTML characters are not escaped, so documents inside print as
// their canonical JSON.
func (e *env) printJSON(v any, pretty bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := e.output(pretty)
	if err := out.json(bytes.TrimRight(b.Bytes(), "\n")); err != nil {
		return err
	}
	return out.flush()
}
