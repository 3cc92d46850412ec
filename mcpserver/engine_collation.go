package mcpserver

import "github.com/omgdb/omgdb/engine"

// engineReader is the server's reader with the call's collation argument:
// checked by omgdb's collation parser (a bad one is INVALID_ARGUMENT,
// naming it) before anything is sent, then sent with the read; the
// redaction stays its first stage. A server without collations (FerretDB
// v1) refuses it, and the engine says so.
func (c *call) engineReader() (engine.Reader, error) {
	if _, err := c.collation(); err != nil {
		return nil, err
	}
	return engine.Collated(c.srv.reader, c.value("collation"))
}
