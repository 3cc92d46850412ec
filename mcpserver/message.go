package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
)

// A line (or an HTTP body) is read once, by one json.Decoder: it walks the
// envelope's members, descends into params, and hands every other value
// on as its raw bytes, so that tool arguments are parsed once more, by
// value.Parse, and nothing else is. The walk, unlike json.Unmarshal into a
// struct, sees every key as sent: keys match case-sensitively, and a key
// given twice (at the top level or in params) is refused rather than
// resolved, since different parsers keep different duplicates.

// request is one JSON-RPC message that carries a method.
type request struct {
	id        json.RawMessage // nil for a notification
	method    string
	params    params    // nil when absent or null
	paramsErr *rpcError // params with a duplicate key: the answer once the method is known
}

func (r *request) notification() bool { return r.id == nil }

// message is one JSON-RPC message as read: a request; or an error to
// answer under id (nil means null); or neither, for a response the client
// sent (this server never asks for one, so it is dropped).
type message struct {
	req    *request
	id     json.RawMessage
	err    *rpcError
	nested bool // an array inside a batch: batches do not nest
}

// input is one line as read: nothing (a blank line), an error to answer
// with id null, one message, or a batch of them.
type input struct {
	msgs  []message
	batch bool
	err   *rpcError
}

// readInput reads one line: over the limit, blank, not UTF-8, not JSON, a
// message or a batch.
func readInput(line []byte, tooLong bool) input {
	if tooLong {
		return input{err: rpcErrorf(codeInvalidRequest,
			"invalid request: message is over the %d-byte (4 MiB) line limit; it was discarded", MaxLineBytes)}
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return input{}
	}
	if e := checkUTF8(line); e != nil {
		return input{err: e}
	}
	r := &msgReader{dec: json.NewDecoder(bytes.NewReader(line)), line: line}
	in, err := r.read()
	if err != nil {
		return input{err: notJSON(line, err)}
	}
	return in
}

// isRequest reports whether the input is one request (not a notification)
// for method.
func (in input) isRequest(method string) bool {
	if in.err != nil || in.batch || len(in.msgs) != 1 {
		return false
	}
	req := in.msgs[0].req
	return req != nil && req.method == method && !req.notification()
}

// notJSON words the error of a line the decoder refused exactly as
// json.Unmarshal words it, with the byte it stopped at: only such a line
// is read a second time.
func notJSON(line []byte, err error) *rpcError {
	var v json.RawMessage
	if uerr := json.Unmarshal(line, &v); uerr != nil {
		err = uerr
	}
	return parseError(err)
}

var errTrailing = errors.New("data after the message")

// msgReader walks one line with a json.Decoder.
type msgReader struct {
	dec  *json.Decoder
	line []byte
	skip json.RawMessage // values no one reads, decoded to move on
}

func (r *msgReader) read() (input, error) {
	var in input
	if r.line[0] == '[' {
		in.batch = true
		if _, err := r.dec.Token(); err != nil {
			return in, err
		}
		for r.dec.More() {
			m, err := r.message()
			if err != nil {
				return in, err
			}
			in.msgs = append(in.msgs, m)
		}
		if _, err := r.dec.Token(); err != nil {
			return in, err
		}
	} else {
		m, err := r.message()
		if err != nil {
			return in, err
		}
		in.msgs = []message{m}
	}
	if len(bytes.TrimLeft(r.line[r.dec.InputOffset():], " \t\r\n")) > 0 {
		return in, errTrailing
	}
	return in, nil
}

// peek returns the first byte of the next value (0 at the end). It skips
// the separators before it without checking them: the decoder does.
func (r *msgReader) peek() byte {
	rest := bytes.TrimLeft(r.line[r.dec.InputOffset():], " \t\r\n,:")
	if len(rest) == 0 {
		return 0
	}
	return rest[0]
}

// message reads one message: an object, or any other value, which is
// refused as a message is (null is an object without members).
func (r *msgReader) message() (message, error) {
	c := r.peek()
	if c == '{' {
		var env envelope
		if err := r.object(&env); err != nil {
			return message{}, err
		}
		return env.message(), nil
	}
	if err := r.dec.Decode(&r.skip); err != nil {
		return message{}, err
	}
	switch c {
	case '[':
		return message{nested: true}, nil // a top-level array is a batch: this one is inside one
	case 'n':
		return (&envelope{}).message(), nil
	case '"':
		return notObject("string"), nil
	case 't', 'f':
		return notObject("bool"), nil
	}
	return notObject("number"), nil
}

func notObject(kind string) message {
	return message{err: rpcErrorf(codeInvalidRequest, "invalid request: a message must be a JSON object, got %s", kind)}
}

// envelope is what a message object holds, as read.
type envelope struct {
	jsonrpc, id json.RawMessage
	method      string
	hasMethod   bool // "method" is present and a string (or null, read as "")
	response    bool // "result" or "error" is present
	params      params
	rawParams   json.RawMessage // params that are not an object
	dup         string          // the first top-level key given twice
	paramsDup   string          // the first key of params given twice
}

// object reads a message object's members.
func (r *msgReader) object(env *envelope) error {
	if _, err := r.dec.Token(); err != nil {
		return err
	}
	seen := make(map[string]bool, 4)
	for r.dec.More() {
		t, err := r.dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if seen[key] && env.dup == "" {
			env.dup = key
		}
		seen[key] = true
		if err := r.member(env, key); err != nil {
			return err
		}
	}
	_, err := r.dec.Token()
	return err
}

// member reads the value of one member of a message object.
func (r *msgReader) member(env *envelope, key string) error {
	switch key {
	case "jsonrpc":
		return r.dec.Decode(&env.jsonrpc)
	case "id":
		return r.dec.Decode(&env.id)
	case "method":
		var te *json.UnmarshalTypeError
		switch err := r.dec.Decode(&env.method); {
		case err == nil:
			env.hasMethod = true
		case !errors.As(err, &te): // a type error leaves the decoder on the next member
			return err
		}
		return nil
	case "params":
		if r.peek() == '{' {
			return r.params(env)
		}
		return r.dec.Decode(&env.rawParams)
	case "result", "error":
		env.response = true
	}
	return r.dec.Decode(&r.skip)
}

// params reads an object of parameters, each value as its raw bytes.
func (r *msgReader) params(env *envelope) error {
	if _, err := r.dec.Token(); err != nil {
		return err
	}
	p := params{}
	for r.dec.More() {
		t, err := r.dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if _, dup := p[key]; dup && env.paramsDup == "" {
			env.paramsDup = key
		}
		var v json.RawMessage
		if err := r.dec.Decode(&v); err != nil {
			return err
		}
		p[key] = v
	}
	env.params = p
	_, err := r.dec.Token()
	return err
}

// message checks an envelope as JSON-RPC 2.0 and MCP require, in the
// order the answers depend on: a duplicate key, then the id (whose answer
// needs it), then jsonrpc, method and params.
func (env *envelope) message() message {
	if env.dup != "" {
		return message{err: rpcErrorf(codeInvalidRequest, "invalid request: duplicate key %q", env.dup)}
	}
	id, idErr := checkID(env.id)
	if idErr != nil {
		return message{err: idErr}
	}
	if string(env.jsonrpc) != `"2.0"` {
		return message{id: id, err: rpcErrorf(codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)}
	}
	if !env.hasMethod {
		if id != nil && env.response {
			return message{} // a response: nothing to answer
		}
		return message{id: id, err: rpcErrorf(codeInvalidRequest, `invalid request: "method" must be a string`)}
	}
	if env.params == nil && env.rawParams != nil && string(env.rawParams) != "null" {
		if id == nil {
			return message{} // a notification is never answered, not even with an error
		}
		return message{id: id, err: rpcErrorf(codeInvalidParams, "invalid params: params must be an object")}
	}
	req := &request{id: id, method: env.method, params: env.params}
	if env.paramsDup != "" {
		req.paramsErr = rpcErrorf(codeInvalidParams, "invalid params: duplicate key %q", env.paramsDup)
	}
	return message{req: req}
}
